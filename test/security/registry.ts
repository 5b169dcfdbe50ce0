import type { CaseFactory } from "./types";
import { foundationCases } from "./cases/foundation";
import { formulaCases } from "./cases/formula";

/** Each area adds its factory here; the suite in security.test.ts runs them all. */
export const caseFactories: Record<string, CaseFactory> = {
  foundation: foundationCases,
  formula: formulaCases,
};
