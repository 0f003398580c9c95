// Small progressive enhancements for the console; every page works without them.
// Copy buttons: <button data-copy="element-id"> copy an input's value or an element's text.
// The app switcher navigates on change.
(function () {
  "use strict";

  function copy(button) {
    var target = document.getElementById(button.getAttribute("data-copy"));
    if (!target) return;
    var text = target.value !== undefined ? target.value : target.textContent;
    var done = function () {
      var label = button.textContent;
      button.textContent = "Copied";
      setTimeout(function () { button.textContent = label; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallback(target); done(); });
    } else {
      fallback(target);
      done();
    }
  }

  // Plain http (make run on 127.0.0.1 is a secure context, a LAN address is not). An input is
  // selected as it is; a code block (<pre>) through a range over its text.
  function fallback(target) {
    if (target.select) {
      target.select();
    } else if (window.getSelection && document.createRange) {
      var range = document.createRange();
      range.selectNodeContents(target);
      window.getSelection().removeAllRanges();
      window.getSelection().addRange(range);
    }
    try { document.execCommand("copy"); } catch (e) { /* the text stays selected */ }
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (button) {
      event.preventDefault();
      copy(button);
    }
  });

  // Tab links (<nav data-tabs>): the page's CSS shows the guide the URL's #fragment names;
  // this marks its link as the current one.
  function markCurrentTab() {
    var links = document.querySelectorAll("[data-tabs] a");
    var current = null;
    links.forEach(function (link) {
      if (link.getAttribute("href") === window.location.hash) current = link;
    });
    if (!current) current = links[0];
    links.forEach(function (link) {
      if (link === current) link.setAttribute("aria-current", "true");
      else link.removeAttribute("aria-current");
    });
  }
  if (document.querySelector("[data-tabs]")) {
    markCurrentTab();
    window.addEventListener("hashchange", markCurrentTab);
  }

  // Menus (<details data-menu>): one open at a time, closed by a click elsewhere or Escape.
  function closeMenus(except) {
    document.querySelectorAll("details[data-menu][open]").forEach(function (menu) {
      if (menu !== except) menu.removeAttribute("open");
    });
  }
  document.addEventListener("click", function (event) {
    closeMenus(event.target.closest("details[data-menu]"));
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    var open = document.querySelector("details[data-menu][open]");
    if (open) {
      closeMenus(null);
      open.querySelector("summary").focus();
    }
  });

  document.addEventListener("change", function (event) {
    var select = event.target.closest("[data-app-switcher] select");
    if (select && select.value) {
      select.form.submit();
    }
  });
})();
