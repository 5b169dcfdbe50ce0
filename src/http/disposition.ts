/** `Content-Disposition` for downloads (RFC 6266). */

/** `attachment` with an ASCII `filename` fallback and an RFC 5987 `filename*`; `extension` is added when missing. */
export function attachmentDisposition(name: string, extension = ".docx"): string {
  const base = name.trim() || "document";
  const fileName = base.toLowerCase().endsWith(extension.toLowerCase()) ? base : `${base}${extension}`;
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\/%;]/g, "_");
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
