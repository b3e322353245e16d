// Playwright helpers for VS Code's workbench: the command palette, quick
// picks, input boxes, modal dialogs and the refactor preview. Every wait is
// on a condition (a locator becoming visible), with a bound.
const QUICK_INPUT = ".quick-input-widget";

export class Workbench {
  constructor(page, shots) {
    this.page = page;
    this.shots = shots;
  }

  async screenshot(name) {
    await this.page.screenshot({ path: `${this.shots}/${name}.png`, animations: "disabled" });
  }

  quickInput() {
    return this.page.locator(QUICK_INPUT);
  }

  async waitQuickInput(timeout = 15000) {
    await this.quickInput().waitFor({ state: "visible", timeout });
  }

  async waitQuickInputClosed(timeout = 15000) {
    await this.quickInput().waitFor({ state: "hidden", timeout });
  }

  /** Runs a command by its palette title. */
  async runCommand(title, timeout = 15000) {
    await this.page.keyboard.press("F1");
    await this.waitQuickInput(timeout);
    const input = this.quickInput().locator("input");
    await input.fill(`>${title}`, { timeout });
    await this.pickRow(title, timeout);
  }

  /** The quick pick row whose label is exactly `label`. */
  row(label) {
    return this.quickInput()
      .locator(".monaco-list-row")
      .filter({ has: this.page.locator(".label-name", { hasText: new RegExp(`^\\s*${escape(label)}\\s*$`) }) });
  }

  /** Waits for a row labelled `label` and clicks it. */
  async pickRow(label, timeout = 15000) {
    const row = this.row(label).first();
    await row.waitFor({ state: "visible", timeout });
    await row.click({ timeout });
  }

  /** Types into the quick input's box (replacing its value) and presses Enter. */
  async submitInput(text) {
    const input = this.quickInput().locator("input");
    await input.fill(text);
    await input.press("Enter");
  }

  /** The modal dialog, once it shows. */
  async modal(timeout = 30000) {
    const dialog = this.page.locator(".monaco-dialog-box");
    await dialog.waitFor({ state: "visible", timeout });
    return dialog;
  }

  /** Clicks a button of the modal dialog by its text. */
  async clickModalButton(text) {
    const dialog = await this.modal();
    await dialog.locator(".monaco-button", { hasText: new RegExp(`^${escape(text)}$`) }).first().click();
    await dialog.waitFor({ state: "hidden", timeout: 15000 });
  }

  /** The status bar item whose text contains `text`. */
  statusItem(text) {
    return this.page.locator(".statusbar-item", { hasText: text });
  }

  /** The text of the active editor's visible lines. */
  async activeEditorText() {
    // The editor renders spaces as no-break spaces.
    const text = await this.page.locator(".editor-group-container.active .view-lines").first().innerText();
    return text.replace(/\u00a0/g, " ");
  }
}

function escape(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
