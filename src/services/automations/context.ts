/** Automation services take the shared service context (src/services/context.ts). */
export type { ServiceContext as ServiceCtx } from "../context";
