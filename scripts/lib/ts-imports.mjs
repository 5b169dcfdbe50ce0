// Lets a Node script import the Worker's TypeScript (src/…) as it is: Node strips the types, and this hook resolves
// the extensionless relative imports the sources use ("./identity" → "./identity.ts", "./schema" →
// "./schema/index.ts"), as the bundler does, and the ".js" names the client's sources give their siblings
// ("./filter.js" → "./filter.ts", as tsc reads them). Imported for its effect, before the first dynamic import of src.
import { register } from "node:module";

const hook = `
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
export async function resolve(specifier, context, next) {
  if (/^\\.{1,2}\\/.*\\.js$/.test(specifier) && context.parentURL?.endsWith(".ts")) {
    const url = new URL(specifier.slice(0, -3) + ".ts", context.parentURL);
    if (!existsSync(fileURLToPath(new URL(specifier, context.parentURL))) && existsSync(fileURLToPath(url)))
      return next(url.href, context);
  }
  if (/^\\.{1,2}\\//.test(specifier) && !/\\.[cm]?[jt]s$/.test(specifier) && context.parentURL?.endsWith(".ts")) {
    for (const tail of [".ts", "/index.ts"]) {
      const url = new URL(specifier + tail, context.parentURL);
      if (existsSync(fileURLToPath(url))) return next(url.href, context);
    }
  }
  return next(specifier, context);
}`;

register(`data:text/javascript,${encodeURIComponent(hook)}`);
