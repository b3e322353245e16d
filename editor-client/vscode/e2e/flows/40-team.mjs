// Teams: with tools.teams and agent.endpoint on a scripted chat-completions
// endpoint (served here) in the folder's settings, and the folder trusted, TeamCreate fills the Team view with its members
// and their states, and TeamDelete empties it. Runs after 20-recovery.mjs (acceptEdits mode).
import * as fs from "node:fs";
import * as http from "node:http";
import * as path from "node:path";

/** A chat-completions endpoint where each member answers once, "<name> ready". */
async function startEndpoint() {
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      let who;
      try {
        who = /You are "(\w+)"/.exec(JSON.parse(body).messages[1].content)?.[1];
      } catch {
        who = undefined;
      }
      if (!who) {
        res.writeHead(400, { "content-type": "application/json" }).end('{"error":{"message":"not a team member"}}');
        return;
      }
      const message = { role: "assistant", content: `${who} ready` };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ choices: [{ message, finish_reason: "stop" }] }));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

export async function run(t) {
  const { wb, page, workspace, step, waitFor, runTool, waitResult } = t;

  step("team: TeamCreate fills the Team view with each member's state; TeamDelete empties it");
  const started = Date.now();
  const endpoint = await startEndpoint();
  try {
    const settings = path.join(workspace, ".toolhost", "settings.json");
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    fs.writeFileSync(
      settings,
      JSON.stringify({
        tools: { teams: true },
        agent: { endpoint: `http://127.0.0.1:${endpoint.address().port}/v1/chat/completions`, model: "scripted" },
        permissions: { allow: ["TeamCreate", "TeamDelete"] },
      }),
    );
    await wb.runCommand("toolhost: Restart Server");
    // The folder now asks for an endpoint and permissions: the restarted
    // server asks whether to trust it, and only then applies them.
    await wb.clickModalButton("Trust Folder");
    await wb.statusItem("toolhost: acceptEdits").waitFor({ state: "visible", timeout: 30000 });

    await runTool(wb, "TeamCreate", {
      team_name: "demo",
      description: "say hello",
      members: [
        { name: "alpha", prompt: "say you are ready" },
        { name: "beta", prompt: "say you are ready" },
      ],
    });
    await waitResult(wb, "TeamCreate");
    await wb.runCommand("toolhost: Focus on Team View");
    const pane = page.locator(".pane", { has: page.locator(".pane-header .title", { hasText: /^Team$/ }) });
    const member = (name, state) => pane.locator(".monaco-list-row", { hasText: name }).filter({ hasText: state });
    await member("alpha", "idle").waitFor({ state: "visible", timeout: 20000 });
    await member("beta", "idle").waitFor({ state: "visible", timeout: 20000 });
    await pane.locator(".monaco-list-row", { hasText: "demo" }).filter({ hasText: "2 idle" }).waitFor({ state: "visible", timeout: 5000 });
    await wb.screenshot("18-team");

    await runTool(wb, "TeamDelete", { team_name: "demo" });
    await waitResult(wb, "TeamDelete");
    await pane.locator(".monaco-list-row", { hasText: "alpha" }).waitFor({ state: "detached", timeout: 20000 });
    await waitFor(async () => /No team is running/.test(await pane.innerText()), "the Team view's empty text");
    console.log(`# team: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    endpoint.close();
    endpoint.closeAllConnections?.();
  }
}
