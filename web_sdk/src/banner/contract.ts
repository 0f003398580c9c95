/**
 * What the main script and the banner module (two files, always of the same version) agree on:
 * the global the module registers itself under, and what the main script passes it to show.
 */

export const BANNER_GLOBAL = "__attributionBannerV1";

export type BannerView = {
  title: string;
  body: string;
  button: string;
  iconUrl: string | null;
  /** An http(s) URL, checked by the main script. */
  link: string;
  position: "top" | "bottom";
  /** banner-v1.css beside the module, for a browser without constructable stylesheets. */
  cssUrl: string;
  onClick(): void;
  onClose(): void;
};

export type BannerModule = { show(view: BannerView): boolean; hide(): void };
