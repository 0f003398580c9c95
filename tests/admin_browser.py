"""An operator's browser on the Django admin, for tests: it logs in through the login form,
reads a page's form as a browser would submit it (every input, select and textarea, the
formsets' management fields and the CSRF token included), changes what the operator changes
and posts it back. CSRF checks are on, as in production; nothing is posted that the page did
not offer. It browses through Django's test client, or over HTTP to a running server.
"""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser

import requests
from django.test import Client

UNSENT_INPUTS = {"submit", "button", "image", "reset", "file"}
OPERATOR_EMAIL, OPERATOR_PASSWORD = "ops@example.com", "operator-password"


class _Forms(HTMLParser):
    """Each form of a page: its id, action and the (name, value) pairs a browser sends."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms: list[dict] = []
        self._form: dict | None = None
        self._select: tuple[str, bool] | None = None  # (name, multiple)
        self._options: list[tuple[str, bool]] = []
        self._option: dict | None = None
        self._textarea: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self._form = {"id": attrs.get("id", ""), "action": attrs.get("action", ""),
                          "fields": []}
            self.forms.append(self._form)
        if self._form is None or "disabled" in attrs:
            return
        name = attrs.get("name")
        if tag == "input" and name:
            kind = (attrs.get("type") or "text").lower()
            if kind in UNSENT_INPUTS:
                return
            if kind in ("checkbox", "radio") and "checked" not in attrs:
                return
            self._form["fields"].append((name, attrs.get("value") or (
                "on" if kind in ("checkbox", "radio") else "")))
        elif tag == "select" and name:
            self._select, self._options = (name, "multiple" in attrs), []
        elif tag == "option" and self._select is not None:
            self._option = {"value": attrs.get("value"), "selected": "selected" in attrs,
                            "text": []}
        elif tag == "textarea" and name:
            self._textarea, self._text = name, []

    def handle_data(self, data):
        if self._option is not None:
            self._option["text"].append(data)
        if self._textarea is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "option" and self._option is not None:
            value = self._option["value"]
            if value is None:
                value = "".join(self._option["text"]).strip()
            self._options.append((value, self._option["selected"]))
            self._option = None
        elif tag == "select" and self._select is not None:
            name, multiple = self._select
            chosen = [value for value, selected in self._options if selected]
            if not chosen and not multiple and self._options:
                chosen = [self._options[0][0]]
            self._form["fields"] += [(name, value) for value in chosen]
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            # Browsers drop the newline that follows <textarea>.
            self._form["fields"].append((self._textarea, "".join(self._text).removeprefix("\n")))
            self._textarea = None
        elif tag == "form":
            self._form = None


@dataclass(frozen=True)
class Page:
    status: int
    location: str
    text: str


def _fields(form: dict) -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {}
    for name, value in form["fields"]:
        fields.setdefault(name, []).append(value)
    return fields


class AdminBrowser:
    """An operator's browser: real requests, real form posts, redirects not followed. With
    `server` (a URL) it talks HTTP to that server; else it goes through Django's test client."""

    def __init__(self, server: str | None = None):
        self.server = server
        if server is None:
            self.client = Client(enforce_csrf_checks=True)
        else:
            self.session = requests.Session()

    def get(self, url: str) -> Page:
        if self.server is None:
            response = self.client.get(url)
        else:
            response = self.session.get(self.server + url, allow_redirects=False, timeout=30)
        return _page(response)

    def post(self, url: str, data: dict[str, list[str]]) -> Page:
        if self.server is None:
            response = self.client.post(url, data)
        else:
            response = self.session.post(self.server + url, data=data, allow_redirects=False,
                                         timeout=30)
        return _page(response)

    def log_in(self, email: str, password: str) -> None:
        fields = self.form("/admin/login/", form_id="login-form")
        fields.update(username=[email], password=[password])
        page = self.post("/admin/login/?next=/admin/", fields)
        assert (page.status, page.location) == (302, "/admin/"), _errors(page)

    def form(self, url: str, *, form_id: str | None = None) -> dict[str, list[str]]:
        """The fields the page's form (the first that posts, the header's log-out button
        aside, or the one with this id) sends, each name with its list of values."""
        page = self.get(url)
        assert page.status == 200, f"GET {url}: {page.status}"
        parser = _Forms()
        parser.feed(page.text)
        forms = [form for form in parser.forms
                 if (form["id"] == form_id if form_id else form["id"] != "logout-form" and
                     any(name == "csrfmiddlewaretoken" for name, _ in form["fields"]))]
        assert forms, f"no such form on {url}"
        return _fields(forms[0])

    def submit(self, url: str, fields: dict[str, list[str]], **changes) -> Page:
        """Post the form back to the page it came from, with `changes` (a value, a list of
        values, or None for a field the operator empties or unticks) applied."""
        data = dict(fields)
        for name, value in changes.items():
            data[name] = [] if value is None else value if isinstance(value, list) else [value]
        return self.post(url, data)

    def change(self, url: str, **changes) -> Page:
        """Open a change form, change some fields and press Save; the admin answers with a
        redirect to the list when the form was valid."""
        page = self.submit(url, self.form(url), _save="Save", **changes)
        assert page.status == 302, _errors(page)
        return page

    def delete(self, url: str) -> Page:
        """Open the delete page and confirm ("Yes, I'm sure")."""
        page = self.submit(url, self.form(url))
        assert page.status == 302, _errors(page)
        return page

    def delete_selected(self, changelist_url: str, ids: list) -> Page:
        """Tick rows on the list, choose "Delete selected", then confirm on the next page."""
        fields = self.form(changelist_url, form_id="changelist-form")
        confirmation = self.submit(changelist_url, fields, action="delete_selected",
                                   _selected_action=[str(i) for i in ids])
        assert confirmation.status == 200, _errors(confirmation)
        parser = _Forms()
        parser.feed(confirmation.text)
        forms = [form for form in parser.forms if ("post", "yes") in form["fields"]]
        assert len(forms) == 1, f"no confirmation: {_errors(confirmation)}"
        page = self.post(changelist_url, _fields(forms[0]))
        assert page.status == 302, _errors(page)
        return page

    def action(self, changelist_url: str, name: str, ids: list) -> Page:
        """Tick rows on the list, choose an action and press Go."""
        fields = self.form(changelist_url, form_id="changelist-form")
        page = self.submit(changelist_url, fields, action=name,
                           _selected_action=[str(i) for i in ids])
        assert page.status == 302, _errors(page)
        return page


def _page(response) -> Page:
    text = response.text if hasattr(response, "text") else response.content.decode()
    return Page(status=response.status_code, location=response.headers.get("Location", ""),
                text=text)


def _errors(page: Page) -> str:
    start = max(page.text.find("errornote"), page.text.find('id="content"'))
    return f"{page.status}: {page.text[start:start + 2000] if start >= 0 else page.text[:2000]}"


def operator_logged_in(server: str | None = None) -> AdminBrowser:
    """A superuser, made now, logged in through the admin's login form."""
    from accounts.models import User

    User.objects.create_superuser(OPERATOR_EMAIL, OPERATOR_PASSWORD)
    browser = AdminBrowser(server)
    browser.log_in(OPERATOR_EMAIL, OPERATOR_PASSWORD)
    return browser
