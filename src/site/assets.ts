import { SITE_CSS } from "./css";

/** A short fingerprint of the stylesheet, so its URL changes with it and it can be cached for a long time. */
function fingerprint(text: string): string {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0).toString(36);
}

export const CSS_VERSION = fingerprint(SITE_CSS);
export const CSS_PATH = "/site/assets/site.css";
export const CSS_HREF = `${CSS_PATH}?v=${CSS_VERSION}`;
