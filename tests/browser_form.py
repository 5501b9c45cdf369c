"""Submitting an admin form the way a browser does, read from the rendered HTML.

What a browser sends differs from what Django's form objects hold: a textarea's text
goes out with CRLF line endings (the HTML standard's form encoding), unchecked boxes
are left out, and the hidden "empty form" rows of inlines are sent too.
"""

from html.parser import HTMLParser


class _FormParser(HTMLParser):
    """Collects the successful controls of the form whose id is ``form_id``."""

    def __init__(self, form_id):
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.inside = False
        self.data = []
        self._textarea = None
        self._select = None
        self._option = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.inside = attrs.get("id") == self.form_id
            return
        if not self.inside or "disabled" in attrs:
            return
        name = attrs.get("name")
        if tag == "input" and name:
            kind = attrs.get("type", "text").lower()
            if kind in {"submit", "button", "image", "reset", "file"}:
                return
            if kind in {"checkbox", "radio"} and "checked" not in attrs:
                return
            self.data.append((name, attrs.get("value", "on" if kind == "checkbox" else "")))
        elif tag == "textarea" and name:
            self._textarea = [name, ""]
        elif tag == "select" and name:
            self._select = {"name": name, "multiple": "multiple" in attrs, "options": []}
        elif tag == "option" and self._select is not None:
            self._option = [attrs.get("value"), "selected" in attrs, ""]
            self._select["options"].append(self._option)

    def handle_data(self, data):
        if self._textarea is not None:
            self._textarea[1] += data
        elif self._option is not None:
            self._option[2] += data

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "textarea" and self._textarea is not None:
            name, text = self._textarea
            if text.startswith("\n"):  # the parser drops one newline after <textarea>
                text = text[1:]
            text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\r\n")
            self.data.append((name, text))
            self._textarea = None
        elif tag == "option":
            self._option = None
        elif tag == "select" and self._select is not None:
            options = self._select["options"]
            chosen = [option for option in options if option[1]]
            if not chosen and not self._select["multiple"] and options:
                chosen = options[:1]  # a single select sends its first option
            for value, _selected, text in chosen:
                self.data.append((self._select["name"], value if value is not None else text))
            self._select = None


def browser_post_data(response, form_id, button="_save"):
    """The fields a browser submits from the form ``form_id`` in ``response``, as a dict
    of lists (for ``client.post``), plus the clicked ``button``."""
    parser = _FormParser(form_id)
    parser.feed(response.content.decode())
    data = {}
    for name, value in parser.data:
        data.setdefault(name, []).append(value)
    if button:
        data[button] = ["Save"]
    return data
