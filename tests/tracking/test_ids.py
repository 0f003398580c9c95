import uuid

from attribution_site.ids import uuid7


def test_uuid7_is_a_version_7_rfc_uuid_starting_with_the_millisecond():
    value = uuid7(0x0190163D8D3F)
    assert value.version == 7
    assert value.variant == uuid.RFC_4122
    assert str(value).startswith("0190163d-8d3f-7")


def test_uuid7_orders_by_time_and_stays_unique():
    earlier = [uuid7(1_700_000_000_000) for _ in range(1000)]
    later = uuid7(1_700_000_000_001)
    assert len(set(earlier)) == 1000
    assert all(value < later for value in earlier)
