// The banner editor's live preview (console/templates/console/web_to_app/banner.html): the
// form's title, text, button and icon drawn as the web script's banner shows them, and the deep
// link the button would open for a sample page path. Everything typed is set as text
// (textContent), never parsed as markup; the icon only from an https URL.
(function () {
  "use strict";

  var form = document.querySelector("[data-banner-form]");
  if (!form) return;

  function field(name) {
    var input = form.elements.namedItem(name);
    return input && input.value !== undefined ? input.value : "";
  }

  function text(selector, value) {
    var node = document.querySelector(selector);
    if (node) node.textContent = value;
  }

  // The same rule as web_to_app/banner_rules.py: {path} is the page's path without its
  // leading slash; {{ and }} are literal braces.
  function fill(template, path) {
    var clean = path.split("#")[0].split("?")[0].replace(/^\/+/, "");
    return template.replace(/\{\{|\}\}|\{path\}/g, function (match) {
      if (match === "{{") return "{";
      if (match === "}}") return "}";
      return clean;
    });
  }

  function draw() {
    text("[data-preview-title]", field("title"));
    text("[data-preview-body]", field("body"));
    text("[data-preview-button]", field("button"));
    var icon = document.querySelector("[data-preview-icon]");
    var url = field("icon_url").trim();
    if (icon) {
      if (/^https:\/\/[^\s]+$/i.test(url)) {
        if (icon.getAttribute("src") !== url) icon.setAttribute("src", url);
        icon.hidden = false;
      } else {
        icon.removeAttribute("src");
        icon.hidden = true;
      }
    }
    var pathInput = document.querySelector("[data-preview-path]");
    var template = field("deep_link_value");
    text("[data-preview-deep-link]", template ? fill(template, pathInput ? pathInput.value : "")
                                              : "(the app's home: no deep link)");
  }

  form.addEventListener("input", draw);
  var path = document.querySelector("[data-preview-path]");
  if (path) path.addEventListener("input", draw);
  draw();
})();
