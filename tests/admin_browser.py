"""An operator's browser on the Django admin, for tests: it logs in through the login form,
reads a page's form as a browser would submit it (every input, select and textarea, the
formsets' management fields and the CSRF token included), changes what the operator changes
and posts it back. CSRF checks are on, as in production; nothing is posted that the page did
not offer.
"""

from __future__ import annotations

from html.parser import HTMLParser

from django.test import Client

UNSENT_INPUTS = {"submit", "button", "image", "reset", "file"}


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


class AdminBrowser:
    """The Django test client as an operator's browser: real requests, real form posts."""

    def __init__(self):
        self.client = Client(enforce_csrf_checks=True)

    def log_in(self, email: str, password: str) -> None:
        fields = self.form("/admin/login/", form_id="login-form")
        fields.update(username=[email], password=[password])
        response = self.client.post("/admin/login/?next=/admin/", fields)
        assert response.status_code == 302 and response["Location"] == "/admin/", (
            "the admin refused the login")

    def form(self, url: str, *, form_id: str | None = None) -> dict[str, list[str]]:
        """The fields the page's form (the first that posts, the header's log-out button
        aside, or the one with this id) sends, each name with its list of values."""
        page = self.client.get(url)
        assert page.status_code == 200, f"GET {url}: {page.status_code}"
        parser = _Forms()
        parser.feed(page.content.decode())
        forms = [form for form in parser.forms
                 if (form["id"] == form_id if form_id else form["id"] != "logout-form" and
                     any(name == "csrfmiddlewaretoken" for name, _ in form["fields"]))]
        assert forms, f"no such form on {url}"
        fields: dict[str, list[str]] = {}
        for name, value in forms[0]["fields"]:
            fields.setdefault(name, []).append(value)
        return fields

    def submit(self, url: str, fields: dict[str, list[str]], **changes) -> object:
        """Post the form back to the page it came from, with `changes` (a value, a list of
        values, or None for a field the operator empties or unticks) applied."""
        data = dict(fields)
        for name, value in changes.items():
            data[name] = [] if value is None else value if isinstance(value, list) else [value]
        return self.client.post(url, data)

    def change(self, url: str, **changes) -> object:
        """Open a change form, change some fields and press Save; the admin answers with a
        redirect to the list when the form was valid."""
        response = self.submit(url, self.form(url), _save="Save", **changes)
        assert response.status_code == 302, _errors(response)
        return response

    def delete(self, url: str) -> object:
        """Open the delete page and confirm ("Yes, I'm sure")."""
        response = self.submit(url, self.form(url))
        assert response.status_code == 302, _errors(response)
        return response

    def delete_selected(self, changelist_url: str, ids: list[str]) -> object:
        """Tick rows on the list, choose "Delete selected", then confirm on the next page."""
        fields = self.form(changelist_url, form_id="changelist-form")
        confirm = self.submit(changelist_url, fields, action="delete_selected",
                              _selected_action=[str(i) for i in ids])
        assert confirm.status_code == 200, _errors(confirm)
        return self._confirm(changelist_url, confirm)

    def action(self, changelist_url: str, name: str, ids: list[str]) -> object:
        """Tick rows on the list, choose an action and press Go."""
        fields = self.form(changelist_url, form_id="changelist-form")
        response = self.submit(changelist_url, fields, action=name,
                               _selected_action=[str(i) for i in ids])
        assert response.status_code == 302, _errors(response)
        return response

    def _confirm(self, url: str, page) -> object:
        parser = _Forms()
        parser.feed(page.content.decode())
        forms = [form for form in parser.forms if ("post", "yes") in form["fields"]]
        assert len(forms) == 1, f"no confirmation: {_errors(page)}"
        [form] = forms
        data: dict[str, list[str]] = {}
        for name, value in form["fields"]:
            data.setdefault(name, []).append(value)
        response = self.client.post(url, data)
        assert response.status_code == 302, _errors(response)
        return response


def _errors(response) -> str:
    body = response.content.decode(errors="replace")
    start = max(body.find("errornote"), body.find('id="content"'))
    return f"{response.status_code}: {body[start:start + 2000] if start >= 0 else body[:2000]}"
