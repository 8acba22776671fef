/**
 * How large a page's SVG chart text really is on screen (issue 29, "pages work at phone width"):
 * an SVG's font-size is in its own units, so a 12-unit label in a 600-unit viewBox drawn 350 px
 * wide is 7 px on the phone while getComputedStyle still says 12px. The rendered size is the
 * computed font size times the text's screen transform (getScreenCTM: the viewBox's scale), and
 * the glyph box's height (getBoundingClientRect) must agree with it.
 */
import { expect } from "chai";
import type { Page } from "playwright-core";

/** The smallest text a person can read on a phone, CSS px (WCAG's success criteria set none; about 11 px is the floor type scales use). */
export const MIN_CHART_TEXT_PX = 11;

export interface ChartText {
  text: string;
  /** The computed font size times the text's on-screen scale, CSS px. */
  renderedPx: number;
  /** The height of the text's box on screen, CSS px. */
  boxHeight: number;
}

/** Every non-empty <text> of the SVG charts under `selector`, with its size on screen. */
export function chartTexts(page: Page, selector: string): Promise<ChartText[]> {
  return page.evaluate(
    (root) =>
      [...document.querySelectorAll(`${root} svg text`)]
        .filter((element) => (element.textContent ?? "").trim() !== "")
        .map((element) => {
          const text = element as SVGTextElement;
          const ctm = text.getScreenCTM();
          const scale = ctm ? Math.hypot(ctm.a, ctm.b) : 0;
          return {
            text: text.textContent ?? "",
            renderedPx: parseFloat(getComputedStyle(text).fontSize) * scale,
            boxHeight: text.getBoundingClientRect().height,
          };
        }),
    selector,
  );
}

/**
 * Fails unless the charts under `selector` have text, and every text is drawn at least
 * MIN_CHART_TEXT_PX on screen (its box at least as tall). Answers the texts.
 */
export async function expectReadableChart(page: Page, selector: string, label: string): Promise<ChartText[]> {
  const texts = await chartTexts(page, selector);
  const width = page.viewportSize()?.width;
  expect(texts.length, `${label}: no chart text under ${selector}`).to.be.above(0);
  for (const t of texts) {
    expect(
      t.renderedPx,
      `${label} at ${width} px wide: "${t.text}" is drawn ${t.renderedPx.toFixed(1)} px`,
    ).to.be.at.least(MIN_CHART_TEXT_PX);
    expect(
      t.boxHeight,
      `${label} at ${width} px wide: "${t.text}" is ${t.boxHeight.toFixed(1)} px tall on screen`,
    ).to.be.at.least(MIN_CHART_TEXT_PX);
  }
  return texts;
}

/** Fails when the page scrolls sideways: document.scrollingElement wider than the window. */
export async function expectFitsWidth(page: Page, label: string): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.scrollingElement!.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth, `${label} is ${scrollWidth} px wide in a ${innerWidth} px window`).to.be.at.most(innerWidth);
}
