import type { CaseFactory } from "../types";
import { seedTable } from "../../support/formula/seed";

/** E3: an outsider gets 404 (no access looks like absence), a workspace viewer 403. Parsing a formula is a read: an outsider gets 404. */
export const formulaCases: CaseFactory = async (t) => {
  const table = await seedTable(t, [
    { name: "Amount", type: "number" },
    { name: "Computed", type: "text" },
  ]);
  const body = {
    description: [
      { kind: "column", text: "Amount", columnId: table.col.Amount },
      { kind: "text", text: " * 2" },
    ],
    expression: {
      kind: "op",
      op: "*",
      args: [
        { kind: "column", columnId: table.col.Amount },
        { kind: "literal", value: 2 },
      ],
    },
  };
  return [
    {
      name: "E3 POST /table/column/{columnId}/computed/apply",
      method: "POST",
      path: `/table/column/${table.col.Computed}/computed/apply`,
      body,
      viewerForbidden: true,
    },
    {
      name: "POST /formula/parse",
      method: "POST",
      path: "/formula/parse",
      body: { tableId: table.tableId, text: "{Amount} * 2" },
    },
  ];
};
