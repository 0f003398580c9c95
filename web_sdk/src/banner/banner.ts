/**
 * The banner (banner-v1.js), loaded by the main script only when a banner is shown. It renders in
 * a shadow root, so the page's styles and the banner's cannot touch each other, and it never
 * writes a style attribute or an element's style: its stylesheet is a constructable stylesheet
 * (which a CSP's style-src does not govern, so it works under `style-src 'self'` on any site),
 * or, in a browser without those, banner-v1.css linked from beside the module (which the site's
 * style-src must then allow). Text goes in as text, never as markup.
 */

import type { BannerModule, BannerView } from "./contract";

function adoptStyles(w: Window & typeof globalThis, root: ShadowRoot): boolean {
  try {
    if (!("adoptedStyleSheets" in w.ShadowRoot.prototype)) return false;
    const sheet = new w.CSSStyleSheet();
    sheet.replaceSync(__BANNER_CSS__);
    root.adoptedStyleSheets = [sheet];
    return true;
  } catch {
    return false;
  }
}

export function createBanner(w: Window & typeof globalThis): BannerModule {
  const d = w.document;
  let host: HTMLElement | null = null;

  const element = <K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string) => {
    const made = d.createElement(tag);
    made.className = className;
    if (text) made.textContent = text;
    return made;
  };
  const hide = () => {
    host?.remove();
    host = null;
  };

  return {
    show(view: BannerView): boolean {
      if (host) return true;
      const shell = d.createElement("div");
      if (!d.body || typeof shell.attachShadow !== "function") return false;
      shell.setAttribute("data-attribution-banner", "");
      shell.setAttribute("data-position", view.position);
      const root = shell.attachShadow({ mode: "open" });

      // Hidden until styled: an unstyled banner would flash across the page.
      const box = element("div", "banner");
      box.hidden = true;
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", view.title || view.button);

      const close = element("button", "close", "\u00d7");
      close.type = "button";
      close.setAttribute("aria-label", "Close");
      close.addEventListener("click", () => {
        hide();
        view.onClose();
      });
      box.append(close);

      if (view.iconUrl) {
        const icon = element("img", "icon");
        icon.alt = "";
        icon.src = view.iconUrl;
        icon.addEventListener("error", () => icon.remove());
        box.append(icon);
      }
      const text = element("div", "text");
      text.append(element("strong", "title", view.title), element("span", "body", view.body));
      const go = element("a", "go", view.button);
      go.href = view.link;
      go.rel = "noopener";
      go.addEventListener("click", () => view.onClick());
      box.append(text, go);

      if (adoptStyles(w, root)) box.hidden = false;
      else {
        const sheet = element("link", "");
        sheet.rel = "stylesheet";
        sheet.href = view.cssUrl;
        sheet.addEventListener("load", () => (box.hidden = false));
        sheet.addEventListener("error", hide); // refused by the site's CSP: show nothing
        root.append(sheet);
      }
      root.append(box);
      d.body.append(shell);
      host = shell;
      return true;
    },
    hide,
  };
}
