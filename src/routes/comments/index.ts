import type { Router } from "../../openapi";
import { registerCreateDocumentComment } from "./createOnDocument";
import { registerCreateRowComment } from "./createOnRow";
import { registerReplyToComment } from "./reply";
import { registerListDocumentComments } from "./listOnDocument";
import { registerListRowComments } from "./listOnRow";
import { registerGetComment } from "./get";
import { registerUpdateComment } from "./update";
import { registerDeleteComment } from "./delete";
import { registerResolveComment } from "./resolve";
import { registerReopenComment } from "./reopen";
import { registerPutCommentReaction } from "./putReaction";
import { registerDeleteCommentReaction } from "./deleteReaction";

/** Comments, threads, mentions and reactions (docs/api-guide.md › Comments). */
export function registerCommentRoutes(app: Router) {
  registerCreateDocumentComment(app);
  registerCreateRowComment(app);
  registerReplyToComment(app);
  registerListDocumentComments(app);
  registerListRowComments(app);
  registerGetComment(app);
  registerUpdateComment(app);
  registerDeleteComment(app);
  registerResolveComment(app);
  registerReopenComment(app);
  registerPutCommentReaction(app);
  registerDeleteCommentReaction(app);
}
