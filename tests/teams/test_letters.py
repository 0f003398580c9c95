"""The invitation email's text (teams/letters.py): pure."""

from datetime import UTC, datetime

from teams.letters import invitation_letter


def test_the_letter_says_who_invites_to_what_as_what_until_when_and_the_link():
    letter = invitation_letter(
        inviter="Ada Admin (ada@example.com)", organization="Acme", role="marketer",
        accept_url="https://attr.example.com/console/invitations/accept?token=abc",
        expires_at=datetime(2026, 5, 8, 12, 30, tzinfo=UTC))
    assert letter.subject == "Join Acme on Attribution"
    assert "Ada Admin (ada@example.com) invited you to join Acme on Attribution as a " \
           "marketer." in letter.body
    assert "\nhttps://attr.example.com/console/invitations/accept?token=abc\n" in letter.body
    assert "until 2026-05-08 12:30 UTC" in letter.body
