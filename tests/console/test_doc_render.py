"""console.doc_render: Markdown as HTML with raw HTML off (no database)."""

from console import doc_render


def test_raw_html_in_a_document_is_printed_as_text():
    html = doc_render.render('<script>alert(1)</script>\n\n<img src=x onerror="alert(2)">').html
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_a_paragraph_that_is_only_a_comment_is_left_out():
    html = doc_render.render("<!-- map:apps -->\n\n| a |\n|---|\n| 1 |\n\n<!-- /map:apps -->\n\n"
                             "text <!-- kept --> here").html
    assert "map:apps" not in html and "<table>" in html
    assert "text &lt;!-- kept --&gt; here" in html


def test_links_to_scripts_are_not_made():
    html = doc_render.render("[click](javascript:alert(1)) [data](data:text/html,x)").html
    assert "<a " not in html


def test_headings_get_githubs_anchors_and_repeats_are_numbered():
    html = doc_render.render("# Time partitions (PostgreSQL)\n\n## `details` is "
                             "`{field: [messages]}`\n\n## Notes\n\n## Notes\n").html
    assert '<h1 id="time-partitions-postgresql">' in html
    assert '<h2 id="details-is-field-messages">' in html
    assert '<h2 id="notes">' in html and '<h2 id="notes-1">' in html


def test_the_title_is_the_first_headings_text():
    assert doc_render.render("Intro.\n\n# Delivery `rules`\n\n# Other\n").title == \
        "Delivery rules"


def test_table_alignment_is_a_class_not_a_style():
    html = doc_render.render("| a | b | c |\n|---|--:|:-:|\n| 1 | 2 | 3 |\n").html
    assert "style=" not in html
    assert '<th class="num">b</th>' in html and '<td class="center">3</td>' in html
    assert html.startswith('<div class="table-wrap"><table>')


def test_links_between_docs_stay_relative_and_the_readme_is_named():
    html = doc_render.render("[a](decisions.md#why) [b](../README.md) [c](https://x.example/"
                             "y.md) [d](#here)").html
    assert 'href="decisions.md#why"' in html and 'href="readme.md"' in html
    assert 'href="https://x.example/y.md"' in html and 'href="#here"' in html
