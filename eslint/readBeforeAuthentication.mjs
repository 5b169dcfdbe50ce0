// A local ESLint rule (eslint.config.mjs, "house/read-before-authentication"): a service function that
// authenticates through `read(ctx, …)` (src/services/batchedAuth.ts) must not run a query on `ctx.db` or `ctx.dir`
// before that call. On a route whose authentication rides in its first read (`auth: "batched"`), such a query runs
// before the token is checked, and the run-time guard (guardUntilAuthenticated) answers 500. This rule makes it a
// lint error instead (docs/architecture.md › "Reads before authentication").
//
// What counts, inside one function:
// - authentication: a call of `read`, `readOnEveryShard` or `ensureAuthenticated`;
// - a query: an `await` of an expression built on `<x>.db` or `<x>.dir` (a drizzle builder, `.batch(…)`,
//   `.run()`…), or a call of `.batch/.run/.all/.get/.values/.execute/.prepare` on such an expression.
// A query written (in source order) before the function's first authentication is reported. Building a statement
// (`ctx.db.select()…` handed to read) is not a query: only running one is.

const AUTHENTICATING = new Set(["read", "readOnEveryShard", "ensureAuthenticated"]);
const RUNNING = new Set(["batch", "run", "all", "get", "values", "execute", "prepare", "exec"]);
const DATABASES = new Set(["db", "dir"]);

/** Whether `node` is built on `<x>.db` / `<x>.dir` (through member accesses and calls). */
function onDatabase(node) {
  let n = node;
  while (n) {
    if (n.type === "ChainExpression") n = n.expression;
    else if (n.type === "CallExpression") n = n.callee;
    else if (n.type === "MemberExpression") {
      if (
        !n.computed &&
        n.property.type === "Identifier" &&
        DATABASES.has(n.property.name) &&
        n.object.type === "Identifier"
      )
        return true;
      n = n.object;
    } else return false;
  }
  return false;
}

/** @type {import("eslint").Rule.RuleModule} */
export default {
  meta: {
    type: "problem",
    docs: { description: "No query on ctx.db or ctx.dir before the function's read() (batched authentication)" },
    messages: {
      early:
        "This query runs before this function's {{auth}}(): on a route whose authentication rides in its first read it runs unauthenticated (a 500). Put the statement in the read() batch, or run it after.",
    },
    schema: [],
  },
  create(context) {
    /** Per function: the queries seen and the first authentication's position. */
    const stack = [];
    const top = () => stack[stack.length - 1];
    const enter = () => stack.push({ queries: [], auth: null });
    const leave = () => {
      const f = stack.pop();
      if (!f.auth) return;
      for (const q of f.queries)
        if (q.range[0] < f.auth.node.range[0])
          context.report({ node: q, messageId: "early", data: { auth: f.auth.name } });
    };
    const query = (node) => {
      const f = top();
      if (f && !f.queries.some((q) => q.range[0] <= node.range[0] && node.range[1] <= q.range[1])) f.queries.push(node);
    };
    return {
      FunctionDeclaration: enter,
      FunctionExpression: enter,
      ArrowFunctionExpression: enter,
      "FunctionDeclaration:exit": leave,
      "FunctionExpression:exit": leave,
      "ArrowFunctionExpression:exit": leave,
      CallExpression(node) {
        const f = top();
        if (!f) return;
        const callee = node.callee;
        if (callee.type === "Identifier" && AUTHENTICATING.has(callee.name)) {
          if (!f.auth || node.range[0] < f.auth.node.range[0]) f.auth = { node, name: callee.name };
          return;
        }
        if (
          callee.type === "MemberExpression" &&
          !callee.computed &&
          callee.property.type === "Identifier" &&
          RUNNING.has(callee.property.name) &&
          onDatabase(callee.object)
        )
          query(node);
      },
      AwaitExpression(node) {
        if (onDatabase(node.argument)) query(node);
      },
    };
  },
};
