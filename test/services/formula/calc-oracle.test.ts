/**
 * LibreOffice Calc as a differential oracle: every formula of the Excel corpus (test/support/formula/corpus/excel.json)
 * is evaluated by the engine and, in one headless Calc run (test/setup/calc-oracle.ts), by LibreOffice. Where
 * Calc gives Excel's documented answer, the engine must give the same; where Calc departs from Excel, the formula
 * must be listed with Calc's answer and the reason in corpus/libreoffice-exceptions.json (Excel wins). A departure
 * not listed, or a listed one on which Calc now agrees, fails the test, so the list stays exact.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import corpus from "../../support/formula/corpus/excel.json";
import exceptionList from "../../support/formula/corpus/libreoffice-exceptions.json";
import { evaluateText, sameValue, type CorpusCase } from "../../support/formula/corpus";

const cases = (corpus as { cases: CorpusCase[] }).cases;
const exceptions = new Map(
  (exceptionList as { exceptions: Array<{ f: string; libreoffice: unknown; why: string }> }).exceptions.map((e) => [
    e.f,
    e,
  ]),
);

describe("LibreOffice Calc as a differential oracle", () => {
  let calc: unknown[] = [];

  beforeAll(async () => {
    const res = await fetch(`${env.CALC_ORACLE_URL}/evaluate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ formulas: cases.map((c) => c.f) }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    calc = ((await res.json()) as { values: unknown[] }).values;
  }, 180_000);

  it("agrees with the engine wherever Calc gives Excel's answer, and departs only where listed", () => {
    const unexpected: string[] = [];
    const stale: string[] = [];
    let agree = 0;
    cases.forEach((c, i) => {
      const ours = evaluateText(c.f);
      const theirs = calc[i];
      const listed = exceptions.get(c.f);
      if (sameValue(theirs, c.excel)) {
        agree++;
        expect(
          sameValue(ours, theirs),
          `${c.f}: engine ${JSON.stringify(ours)}, Calc and Excel ${JSON.stringify(theirs)}`,
        ).toBe(true);
        if (listed) stale.push(`${c.f} (Calc now answers Excel's ${JSON.stringify(theirs)})`);
      } else if (!listed || !sameValue(theirs, listed.libreoffice)) {
        unexpected.push(
          `${c.f}: Calc ${JSON.stringify(theirs)}, Excel ${JSON.stringify(c.excel)}, engine ${JSON.stringify(ours)}`,
        );
      } else {
        // Excel wins: the engine gives Excel's documented answer, not Calc's.
        expect(
          sameValue(ours, c.excel),
          `${c.f}: engine ${JSON.stringify(ours)}, Excel ${JSON.stringify(c.excel)}`,
        ).toBe(true);
      }
    });
    console.log(
      `LibreOffice Calc agrees with the engine on ${agree} of ${cases.length} formulas; ${cases.length - agree} listed departures from Excel`,
    );
    expect(unexpected, "Calc departs from Excel on formulas not listed in libreoffice-exceptions.json").toEqual([]);
    expect(stale, "listed departures on which Calc agrees").toEqual([]);
    expect(agree).toBeGreaterThanOrEqual(cases.length - exceptions.size);
  });

  it("lists every departure with its reason", () => {
    for (const e of exceptions.values()) {
      expect(
        cases.some((c) => c.f === e.f),
        e.f,
      ).toBe(true);
      expect(e.why.length, e.f).toBeGreaterThan(20);
    }
  });
});
