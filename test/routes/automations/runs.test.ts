import { shardD1 } from "../../support/shards";
import { newIdBeside } from "../../../src/tenancy/kernel/ids";
import { beforeAll, describe, expect, it } from "vitest";
import { ok, registerUser, seedTenant, addWorkspaceCollaborator, type Tenant } from "../../support/harness";
import { addColumn, addRow, allRows, makeTable } from "../../support/tableHarness";
import { callQueue, finishedRuns, hookUrl, runs, sleep } from "../../support/automations";

let t: Tenant;

beforeAll(async () => {
  t = await seedTenant();
});

async function automation(token: string, body: Record<string, unknown>) {
  return (await ok("POST", "/automation", { token, body: { projectId: t.projectId, name: "A", ...body } })).data;
}

describe("event runs", () => {
  it("a created row runs a matching automation once, with per-action figures, and a filtered-out table does not", async () => {
    const { tableId, nameColumnId } = await makeTable(t.owner.token, t.projectId, "Source");
    const other = await makeTable(t.owner.token, t.projectId, "Other");
    const target = await makeTable(t.owner.token, t.projectId, "Target");
    const a = await automation(t.owner.token, {
      triggers: [{ event: "row.created", filter: { tableId } }],
      actions: [
        {
          id: "copy",
          spec: { kind: "row.create", tableId: target.tableId, cells: { [target.nameColumnId]: "copied" } },
        },
      ],
    });
    const row = await addRow(t.owner.token, tableId, { [nameColumnId]: "x" });
    await addRow(t.owner.token, other.tableId, { [other.nameColumnId]: "y" });
    const [run] = await finishedRuns(t.owner.token, a._id);
    expect(run).toMatchObject({
      status: "succeeded",
      depth: 1,
      trigger: { type: "event", event: "row.created", rowId: row.row._id },
      affectedRows: 1,
    });
    expect(run.operations).toBeGreaterThan(0);
    const detail = (await ok("GET", `/automation/run/${run._id}`, { token: t.viewer.token })).data;
    expect(detail.actions).toEqual([
      expect.objectContaining({
        id: "copy",
        kind: "row.create",
        status: "succeeded",
        affectedRows: 1,
        error: null,
        startedAt: expect.any(Number),
        finishedAt: expect.any(Number),
      }),
    ]);
    expect(detail.actions[0].operations).toBeGreaterThan(0);
    const copied = await allRows(t.owner.token, target.tableId);
    expect(copied.map((r) => r.cells[target.nameColumnId])).toEqual(["copied"]);
    await sleep(1500);
    expect(await runs(t.owner.token, a._id)).toHaveLength(1);
    const after = (await ok("GET", `/automation/${a._id}`, { token: t.owner.token })).data;
    expect(after.lastRunAt).toBeGreaterThan(0);
  });

  it("exactly once per (automation, event) when the Queue redelivers the message", async () => {
    const src = await makeTable(t.owner.token, t.projectId, "Once");
    const target = await makeTable(t.owner.token, t.projectId, "Once target");
    const a = await automation(t.owner.token, {
      triggers: [{ event: "row.created", filter: { tableId: src.tableId } }],
      actions: [{ spec: { kind: "row.create", tableId: target.tableId } }],
    });
    await addRow(t.owner.token, src.tableId);
    const [run] = await finishedRuns(t.owner.token, a._id);
    // The same message again, twice in one batch and once more on its own: acknowledged, nothing runs.
    const result = await callQueue(
      "automation-runs",
      [
        { kind: "run", runId: run._id },
        { kind: "run", runId: run._id },
      ],
      2,
    );
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks).toHaveLength(2);
    await callQueue("automation-runs", [{ kind: "run", runId: run._id }], 3);
    expect(await allRows(t.owner.token, target.tableId)).toHaveLength(1);
    expect(await runs(t.owner.token, a._id)).toHaveLength(1);
    // A second emission of the same event id is refused by the unique run key.
    const dup = await shardD1(run._id)
      .prepare(
        `INSERT INTO automation_runs (id, automation_id, project_id, event_key, "trigger", depth, status, operations, affected_rows, external_writes, actions, delivery_ids, created_at, updated_at)
       SELECT 'dup-run', automation_id, project_id, event_key, "trigger", depth, 'queued', 0, 0, 0, '[]', '[]', 0, 0 FROM automation_runs WHERE id = ?1 WHERE true
       ON CONFLICT (automation_id, event_key) DO NOTHING`,
      )
      .bind(run._id)
      .run()
      .catch(() => null);
    expect(dup?.meta.changes ?? 0).toBe(0);
  });

  it("loop guard: an automation that writes what triggers it stops at depth 3", async () => {
    const loop = await makeTable(t.owner.token, t.projectId, "Loop");
    const a = await automation(t.owner.token, {
      triggers: [{ event: "row.created", filter: { tableId: loop.tableId } }],
      actions: [{ spec: { kind: "row.create", tableId: loop.tableId } }],
    });
    await addRow(t.owner.token, loop.tableId);
    const done = await finishedRuns(t.owner.token, a._id, 3);
    expect(done.map((r) => r.depth).sort()).toEqual([1, 2, 3]);
    await sleep(2500);
    expect(await runs(t.owner.token, a._id)).toHaveLength(3);
    expect(await allRows(t.owner.token, loop.tableId)).toHaveLength(4);
  });

  it("row.updated with a column filter, conditions that select nothing end skipped, and row.update sets the triggering row", async () => {
    const tb = await makeTable(t.owner.token, t.projectId, "Cond");
    const status = await addColumn(t.owner.token, tb.tableId, "Status", { type: "text" });
    const score = await addColumn(t.owner.token, tb.tableId, "Score", { type: "number" });
    const a = await automation(t.owner.token, {
      triggers: [{ event: "row.updated", filter: { tableId: tb.tableId, columnId: score._id } }],
      conditions: {
        conjunction: "and",
        predicates: [{ columnId: score._id, op: "gte", value: 10 }],
        group: {
          conjunction: "or",
          predicates: [
            { columnId: tb.nameColumnId, op: "eq", value: "a" },
            { columnId: tb.nameColumnId, op: "eq", value: "b" },
          ],
        },
      },
      actions: [{ id: "mark", spec: { kind: "row.update", set: { [status._id]: "high" } } }],
    });
    const r1 = await addRow(t.owner.token, tb.tableId, { [tb.nameColumnId]: "a" });
    const r2 = await addRow(t.owner.token, tb.tableId, { [tb.nameColumnId]: "z" });
    await ok("PUT", `/table/row/${r1.row._id}/cell/${status._id}`, {
      token: t.owner.token,
      body: { data: "untouched" },
    }); // other column: no run
    await ok("PUT", `/table/row/${r1.row._id}/cell/${score._id}`, { token: t.owner.token, body: { data: 12 } });
    await ok("PUT", `/table/row/${r2.row._id}/cell/${score._id}`, { token: t.owner.token, body: { data: 50 } });
    const done = await finishedRuns(t.owner.token, a._id, 2);
    const byRow = Object.fromEntries(done.map((r) => [r.trigger.rowId, r]));
    expect(byRow[r1.row._id].status).toBe("succeeded");
    expect(byRow[r2.row._id].status).toBe("skipped");
    const rows = await allRows(t.owner.token, tb.tableId);
    expect(rows.find((r) => r._id === r1.row._id).cells[status._id]).toBe("high");
    expect(rows.find((r) => r._id === r2.row._id).cells[status._id]).toBe(null);
    expect((await ok("GET", `/automation/${a._id}`, { token: t.owner.token })).data.consecutiveFailures).toBe(0);
  });

  it("document.created runs with a folder filter", async () => {
    const a = await automation(t.owner.token, {
      triggers: [{ event: "document.created", filter: { documentId: t.folderId } }],
      actions: [{ spec: { kind: "notify", title: "New document" } }],
    });
    await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: t.projectId, name: "Root doc", type: "DOCUMENT" },
    });
    const doc = await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: t.projectId, parentId: t.folderId, name: "In folder", type: "DOCUMENT" },
    });
    const [run] = await finishedRuns(t.owner.token, a._id);
    expect(run.trigger).toMatchObject({ event: "document.created", documentId: doc.data._id });
    await sleep(1000);
    expect(await runs(t.owner.token, a._id)).toHaveLength(1);
  });
});

describe("document.updated", () => {
  it("runs when a document's content is replaced, narrowed by its document filter", async () => {
    const a = await automation(t.owner.token, {
      triggers: [{ event: "document.updated", filter: { documentId: t.docId } }],
      actions: [{ spec: { kind: "notify", title: "Edited" } }],
    });
    await ok("PUT", `/document/${t.doc2Id}/content`, {
      token: t.owner.token,
      body: { blocks: [{ id: "x", type: "paragraph", content: [] }] },
    });
    await ok("PUT", `/document/${t.docId}/content`, {
      token: t.owner.token,
      body: { blocks: [{ id: "y", type: "paragraph", content: [] }] },
    });
    const [run] = await finishedRuns(t.owner.token, a._id);
    expect(run.trigger).toMatchObject({ event: "document.updated", documentId: t.docId });
    await sleep(1000);
    expect(await runs(t.owner.token, a._id)).toHaveLength(1);
  });
});

describe("budgets, failures and rights", () => {
  it("maxAffectedRows stops the run at the first excess and names the budget; earlier writes stay", async () => {
    const target = await makeTable(t.owner.token, t.projectId, "Budget");
    const a = await automation(t.owner.token, {
      behavior: { maxAffectedRows: 2 },
      actions: [1, 2, 3, 4].map((i) => ({ id: `c${i}`, spec: { kind: "row.create", tableId: target.tableId } })),
    });
    await ok("POST", `/automation/${a._id}/run`, { token: t.owner.token });
    const [run] = await finishedRuns(t.owner.token, a._id);
    expect(run.status).toBe("failed");
    expect(run.error).toMatchObject({ code: "BudgetExceeded", budget: "maxAffectedRows", limit: 2, used: 3 });
    expect(run.actions.map((x: any) => x.status)).toEqual(["succeeded", "succeeded", "failed", "notRun"]);
    expect(await allRows(t.owner.token, target.tableId)).toHaveLength(2);
  });

  it("operationBudget counts database round trips and refuses the one over", async () => {
    const target = await makeTable(t.owner.token, t.projectId, "Ops");
    // Different cells, so each action is its own insert (alike ones go as one, below).
    const a = await automation(t.owner.token, {
      behavior: { operationBudget: 3 },
      actions: [1, 2, 3].map((i) => ({
        spec: { kind: "row.create", tableId: target.tableId, cells: { [target.nameColumnId]: `r${i}` } },
      })),
    });
    await ok("POST", `/automation/${a._id}/run`, { token: t.owner.token });
    const [run] = await finishedRuns(t.owner.token, a._id);
    expect(run.error).toMatchObject({ code: "BudgetExceeded", budget: "operationBudget", limit: 3, used: 4 });
    expect(run.operations).toBe(3);
  });

  it("consecutive alike row.create actions are one insert: 50 rows for the round trips of one, recorded action by action", async () => {
    const target = await makeTable(t.owner.token, t.projectId, "Grouped");
    const one = await automation(t.owner.token, {
      actions: [
        { id: "c0", spec: { kind: "row.create", tableId: target.tableId, cells: { [target.nameColumnId]: "x" } } },
      ],
    });
    const fifty = await automation(t.owner.token, {
      behavior: { maxAffectedRows: 50 },
      actions: Array.from({ length: 50 }, (_, i) => ({
        id: `c${i}`,
        spec: { kind: "row.create", tableId: target.tableId, cells: { [target.nameColumnId]: "x" } },
      })),
    });
    await ok("POST", `/automation/${one._id}/run`, { token: t.owner.token });
    const [single] = await finishedRuns(t.owner.token, one._id);
    await ok("POST", `/automation/${fifty._id}/run`, { token: t.owner.token });
    const [run] = await finishedRuns(t.owner.token, fifty._id);
    expect(run).toMatchObject({ status: "succeeded", affectedRows: 50 });
    // One by one this was 50 × the single run's round trips.
    expect(run.operations).toBeLessThanOrEqual(single.operations);
    expect(run.actions).toHaveLength(50);
    for (const [i, rec] of run.actions.entries())
      expect(rec).toMatchObject({ id: `c${i}`, kind: "row.create", status: "succeeded", affectedRows: 1, error: null });
    expect(run.actions.reduce((n: number, r: any) => n + r.operations, 0)).toBeLessThanOrEqual(run.operations);
    const rows = await allRows(t.owner.token, target.tableId);
    expect(rows).toHaveLength(51);
    expect(rows.every((r) => r.cells[target.nameColumnId] === "x")).toBe(true);
  });

  it("a refusal of alike row.create actions is each one's in turn: the first without continueOnError ends the run, nothing written", async () => {
    const target = await makeTable(t.owner.token, t.projectId, "GroupedBad");
    const spec = { kind: "row.create", tableId: target.tableId, cells: { "no-such-column": 1 } };
    const a = await automation(t.owner.token, {
      actions: [
        { id: "a", continueOnError: true, spec },
        { id: "b", spec },
        { id: "c", spec },
      ],
    });
    await ok("POST", `/automation/${a._id}/run`, { token: t.owner.token });
    const [run] = await finishedRuns(t.owner.token, a._id);
    expect(run.status).toBe("failed");
    expect(run.actions.map((x: any) => [x.id, x.status])).toEqual([
      ["a", "failed"],
      ["b", "failed"],
      ["c", "notRun"],
    ]);
    expect(run.actions[1].error).toEqual(run.actions[0].error);
    expect(run.error).toEqual(run.actions[1].error);
    expect(await allRows(t.owner.token, target.tableId)).toHaveLength(0);
  });

  it("externalWriteBudget and allowDocumentWrites", async () => {
    const a = await automation(t.owner.token, {
      behavior: { externalWriteBudget: 1 },
      actions: [
        { spec: { kind: "webhook", url: hookUrl(`budget-a-${Date.now()}`) } },
        { spec: { kind: "webhook", url: hookUrl(`budget-b-${Date.now()}`) } },
      ],
    });
    await ok("POST", `/automation/${a._id}/run`, { token: t.owner.token });
    const [run] = await finishedRuns(t.owner.token, a._id);
    expect(run.error).toMatchObject({ code: "BudgetExceeded", budget: "externalWriteBudget", limit: 1, used: 2 });
    expect(run.externalWrites).toBe(1);
    expect(run.deliveryIds).toHaveLength(1);

    const d = await automation(t.owner.token, {
      actions: [{ spec: { kind: "document.create", name: "From automation" } }],
    });
    await ok("POST", `/automation/${d._id}/run`, { token: t.owner.token });
    const [dr] = await finishedRuns(t.owner.token, d._id);
    expect(dr.error).toMatchObject({ code: "BudgetExceeded", budget: "allowDocumentWrites" });
    await ok("PATCH", `/automation/${d._id}`, {
      token: t.owner.token,
      body: { behavior: { allowDocumentWrites: true } },
    });
    await ok("POST", `/automation/${d._id}/run`, { token: t.owner.token });
    const [ok2] = await finishedRuns(t.owner.token, d._id, 2);
    expect(ok2.status).toBe("succeeded");
    const docs = await ok("GET", `/document/all/${t.projectId}`, { token: t.owner.token });
    expect(docs.data.some((x: any) => x.name === "From automation")).toBe(true);
  });

  it("continueOnError lets later actions run; a failing action without it fails the run", async () => {
    const target = await makeTable(t.owner.token, t.projectId, "Cont");
    const a = await automation(t.owner.token, {
      actions: [
        { id: "bad", continueOnError: true, spec: { kind: "row.create", tableId: "no-such-table" } },
        { id: "good", spec: { kind: "row.create", tableId: target.tableId } },
      ],
    });
    await ok("POST", `/automation/${a._id}/run`, { token: t.owner.token });
    const [run] = await finishedRuns(t.owner.token, a._id);
    expect(run.status).toBe("succeeded");
    expect(run.actions.map((x: any) => [x.id, x.status])).toEqual([
      ["bad", "failed"],
      ["good", "succeeded"],
    ]);
    expect(run.actions[0].error).toMatchObject({ code: "NotFoundError" });
  });

  it("5 consecutive failures disable the automation and notify its owner", async () => {
    const owner = await registerUser("Failing owner");
    const project = (
      await ok("POST", "/project", { token: owner.token, body: { workspaceId: owner.workspaceId, name: "P" } })
    ).data;
    const a = (
      await ok("POST", "/automation", {
        token: owner.token,
        body: {
          projectId: project._id,
          name: "Broken",
          actions: [{ spec: { kind: "row.create", tableId: "missing" } }],
        },
      })
    ).data;
    for (let i = 1; i <= 5; i++) {
      await ok("POST", `/automation/${a._id}/run`, { token: owner.token });
      await finishedRuns(owner.token, a._id, i);
    }
    const after = (await ok("GET", `/automation/${a._id}`, { token: owner.token })).data;
    expect(after).toMatchObject({ enabled: false, consecutiveFailures: 5, nextRunAt: null });
    const notes = (await ok("GET", "/notification/all", { token: owner.token })).data;
    expect(notes.filter((n: any) => n.kind === "automation.disabled")).toHaveLength(1);
    // Re-enabling resets the count.
    expect(
      (await ok("PATCH", `/automation/${a._id}`, { token: owner.token, body: { enabled: true } })).data
        .consecutiveFailures,
    ).toBe(0);
  });

  it("runs with the owner's rights at run time: a removed owner's automation fails and writes nothing", async () => {
    const owner = await registerUser("Owner");
    const member = await registerUser("Member");
    const project = (
      await ok("POST", "/project", { token: owner.token, body: { workspaceId: owner.workspaceId, name: "Shared" } })
    ).data;
    await addWorkspaceCollaborator(owner, owner.workspaceId, member, "editor");
    const target = await makeTable(owner.token, project._id, "T");
    const a = (
      await ok("POST", "/automation", {
        token: member.token,
        body: {
          projectId: project._id,
          name: "Member's",
          actions: [{ spec: { kind: "row.create", tableId: target.tableId } }],
        },
      })
    ).data;
    await ok("DELETE", `/workspace/${owner.workspaceId}/collaborator/${member.id}`, { token: owner.token });
    await ok("POST", `/automation/${a._id}/run`, { token: owner.token });
    const [run] = await finishedRuns(owner.token, a._id);
    expect(run.status).toBe("failed");
    expect(run.error.code).toBe("ForbiddenError");
    expect(await allRows(owner.token, target.tableId)).toHaveLength(0);
  });

  it("an event on a project its owner can no longer read creates no run and no record of it (same organization)", async () => {
    const owner = await registerUser("Event owner");
    const member = await registerUser("Event member");
    const project = (
      await ok("POST", "/project", { token: owner.token, body: { workspaceId: owner.workspaceId, name: "Watched" } })
    ).data;
    await addWorkspaceCollaborator(owner, owner.workspaceId, member, "editor");
    const source = await makeTable(owner.token, project._id, "Source");
    const trigger = { event: "row.created", filter: { tableId: source.tableId } };
    const notify = [{ id: "n", spec: { kind: "notify", title: "Row" } }];
    const mine = (
      await ok("POST", "/automation", {
        token: member.token,
        body: { projectId: project._id, name: "Member's", triggers: [trigger], actions: notify },
      })
    ).data;
    const control = (
      await ok("POST", "/automation", {
        token: owner.token,
        body: { projectId: project._id, name: "Owner's", triggers: [trigger], actions: notify },
      })
    ).data;
    await addRow(owner.token, source.tableId);
    const [seen] = await finishedRuns(member.token, mine._id);
    expect(seen.status).toBe("succeeded");
    await ok("DELETE", `/workspace/${owner.workspaceId}/collaborator/${member.id}`, { token: owner.token });
    const unseen = await addRow(owner.token, source.tableId);
    // The owner's automation ran for the same event: the member's was looked up in the same pass.
    await finishedRuns(owner.token, control._id, 2);
    await sleep(1000);
    expect((await runs(owner.token, mine._id)).map((r: any) => r._id)).toEqual([seen._id]);
    const recorded = await shardD1(project._id)
      .prepare(`SELECT count(*) AS n FROM automation_runs WHERE automation_id = ?1 AND "trigger" LIKE ?2`)
      .bind(mine._id, `%${unseen.row._id}%`)
      .first<number>("n");
    expect(recorded).toBe(0);
  });

  it("the dead-letter consumer fails what it receives and tells the owner", async () => {
    const a = await automation(t.owner.token, { enabled: false, actions: [] });
    const [row] = (
      await shardD1(a._id)
        .prepare(
          `INSERT INTO automation_runs (id, automation_id, project_id, "trigger", depth, status, operations, affected_rows, external_writes, actions, delivery_ids, created_at, updated_at)
       VALUES (?1, ?2, ?3, '{"type":"manual"}', 0, 'queued', 0, 0, 0, '[]', '[]', 1, 1) RETURNING id`,
        )
        .bind(newIdBeside(a._id), a._id, t.projectId)
        .all<{ id: string }>()
    ).results;
    const result = await callQueue("automation-dlq", [{ kind: "run", runId: row!.id }, { nonsense: true }], 11);
    expect(result.explicitAcks).toHaveLength(2);
    const run = (await ok("GET", `/automation/run/${row!.id}`, { token: t.owner.token })).data;
    expect(run).toMatchObject({ status: "failed", error: { code: "DeadLettered" } });
    const notes = (await ok("GET", "/notification/all", { token: t.owner.token })).data;
    expect(notes.some((n: any) => n.data?.runId === row!.id)).toBe(true);
  });
});
