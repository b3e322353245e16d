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

  /**
   * Opens a quick input with `open`, optionally types `filter` into it and
   * clicks the row labelled `label`. Focus coming back late (after a modal
   * closes, a document opens or a server restarts) can close a quick input
   * right after it opened; that one is closed and opened again, up to three
   * times. An attempt fails only before the row is clicked, so the choice
   * never happens twice.
   */
  async choose(open, label, { filter, timeout = 15000 } = {}) {
    const attempts = 3;
    for (let attempt = 1; ; attempt++) {
      try {
        await open();
        // A quick input that is closing is still visible for its animation,
        // but inert: wait for one that takes input.
        const input = this.page.locator(`${QUICK_INPUT}:not([inert]) input`).first();
        await input.waitFor({ state: "visible", timeout: timeout / attempts });
        if (filter !== undefined) await input.fill(filter, { timeout: timeout / attempts });
        await this.pickRow(label, timeout / attempts);
        return;
      } catch (err) {
        if (attempt === attempts) {
          throw new Error(`choosing "${label}" failed ${attempts} times; the workbench shows: ${await this.describe()}`, { cause: err });
        }
        console.error(`(the quick input for "${label}" closed before its row was picked; opening it again)`);
        await this.page.keyboard.press("Escape");
      }
    }
  }

  /** Runs a command by its palette title (see choose for the retries). */
  async runCommand(title, timeout = 15000) {
    await this.choose(() => this.page.keyboard.press("F1"), title, { filter: `>${title}`, timeout });
  }

  /** Opens `name`, a file at the workspace root, with Go to File. */
  async openFile(name, timeout = 15000) {
    await this.choose(() => this.runCommand("Go to File...", timeout), name, { filter: name, timeout });
  }

  /** Clicks the status bar item showing `text` and picks `label` in its quick pick. */
  async pickFromStatus(text, label, timeout = 15000) {
    await this.choose(() => this.statusItem(text).click({ timeout }), label, { timeout });
  }

  /**
   * What the workbench shows that can take focus from a test: a modal
   * dialog, notification toasts, the quick input. Printed when a step
   * fails, so that a run's log says why without its screenshots.
   */
  async describe() {
    const texts = async (selector) => {
      const shown = [];
      for (const el of await this.page.locator(selector).all()) {
        if (await el.isVisible().catch(() => false)) {
          shown.push((await el.innerText().catch(() => "")).replace(/\s+/g, " ").trim());
        }
      }
      return shown;
    };
    const parts = [];
    for (const d of await texts(".monaco-dialog-box")) parts.push(`a modal dialog: "${d}"`);
    for (const n of await texts(".notifications-toasts .notification-toast")) parts.push(`a notification: "${n}"`);
    const quick = this.quickInput();
    if (await quick.isVisible().catch(() => false)) {
      const inert = await quick.evaluate((el) => el.inert).catch(() => false);
      const value = await quick.locator("input").first().inputValue().catch(() => "");
      parts.push(`the quick input${inert ? " (closing)" : ""} with "${value}"`);
    }
    return parts.length ? parts.join("; ") : "no dialog, notification or quick input";
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
