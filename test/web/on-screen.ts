/**
 * Whether a table cell is seen at the page's width without scrolling sideways (issue 29's screenshot
 * review: at 390 px the swap page's Price column sat to the right inside the table's scrolling box,
 * so a person saw Pool, DOGE and Tokens only). Playwright's bounding box is the element's place in
 * the window whether or not a scrolling box clips it, so each box around the cell is checked too.
 */
import { expect } from "chai";
import type { Page } from "playwright-core";

export interface CellPlace {
  /** The cell's box and its text's box, CSS px from the window's left edge. */
  cell: { left: number; right: number };
  text: { left: number; right: number };
  /** The boxes around the cell that would clip it sideways and scroll sideways instead (wider content than box). */
  scrollers: string[];
}

/** Where the cell `selector` (the first match) and its text lie sideways, and what scrolls sideways around it. */
export function cellPlace(page: Page, selector: string): Promise<CellPlace> {
  return page
    .locator(selector)
    .first()
    .evaluate((cell) => {
      const range = document.createRange();
      range.selectNodeContents(cell);
      const text = range.getBoundingClientRect();
      const box = cell.getBoundingClientRect();
      const scrollers: string[] = [];
      for (let up = cell.parentElement; up && up !== document.documentElement; up = up.parentElement) {
        if (getComputedStyle(up).overflowX !== "visible" && up.scrollWidth > up.clientWidth)
          scrollers.push(
            `${up.tagName.toLowerCase()}${up.id ? `#${up.id}` : ""}.${up.className} (${up.scrollWidth} px in ${up.clientWidth} px)`,
          );
      }
      return { cell: { left: box.left, right: box.right }, text: { left: text.left, right: text.right }, scrollers };
    });
}

/**
 * Fails unless the cell `selector` is visible and it and its text lie inside the window sideways,
 * with nothing around it scrolling sideways. Answers where it is.
 */
export async function expectCellOnScreen(page: Page, selector: string, label: string): Promise<CellPlace> {
  const width = page.viewportSize()!.width;
  expect(await page.locator(selector).first().isVisible(), `${label} is visible`).to.equal(true);
  const place = await cellPlace(page, selector);
  const where = `${label} at ${width} px wide: ${JSON.stringify(place)}`;
  expect(place.scrollers, where).to.deep.equal([]);
  expect(place.cell.left, where).to.be.at.least(0);
  expect(place.cell.right, where).to.be.at.most(width);
  expect(place.text.left, where).to.be.at.least(0);
  expect(place.text.right, where).to.be.at.most(width);
  expect(place.text.right - place.text.left, where).to.be.above(0);
  return place;
}
