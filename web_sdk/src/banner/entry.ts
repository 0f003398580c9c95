/** The entry of banner-v1.js: registers the banner for the main script to call. */

import { createBanner } from "./banner";
import { BANNER_GLOBAL } from "./contract";

(window as unknown as Record<string, unknown>)[BANNER_GLOBAL] = createBanner(window);
