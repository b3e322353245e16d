/**
 * toolhost's protocol names, in one place (as rust-analyzer keeps its
 * extension protocol in one file). A Go test in lspserver holds
 * `ClientRequests` to the server's `Methods` and every other name to one
 * the server sends; a test here holds the extension to naming methods only
 * through this file.
 */

/** Requests the extension sends; the server lists them in capabilities.experimental.toolhost.methods. */
export const ClientRequests = {
  listTools: "toolhost/listTools",
  callTool: "toolhost/callTool",
  callTools: "toolhost/callTools",
  setToolsEnabled: "toolhost/setToolsEnabled",
  setPermissionMode: "toolhost/setPermissionMode",
  status: "toolhost/status",
  checkPermission: "toolhost/checkPermission",
  changes: "toolhost/changes",
  rewind: "toolhost/rewind",
} as const;

/** Requests the server sends to the extension. */
export const ServerRequests = {
  askUserQuestion: "toolhost/askUserQuestion",
  requestPermission: "toolhost/requestPermission",
  reviewChanges: "toolhost/reviewChanges",
  requestTrust: "toolhost/requestTrust",
  runAgent: "toolhost/runAgent",
  ideTool: "toolhost/ideTool",
  diagnostics: "toolhost/diagnostics",
  languageFeature: "toolhost/languageFeature",
} as const;

/** Notifications the extension sends (Claude Code's IDE protocol: the selection, mentions). */
export const ClientNotifications = {
  ideNotify: "toolhost/ideNotify",
} as const;

/** Notifications the server sends to the extension. */
export const ServerNotifications = {
  todos: "toolhost/todos",
  taskList: "toolhost/taskList",
  modeChanged: "toolhost/modeChanged",
  worktreeChanged: "toolhost/worktreeChanged",
  taskChanged: "toolhost/taskChanged",
  toolsChanged: "toolhost/toolsChanged",
  teamChanged: "toolhost/teamChanged",
  trustChanged: "toolhost/trustChanged",
} as const;

/** LSP's own notification of changed settings, which the extension sends. */
export const DidChangeConfiguration = "workspace/didChangeConfiguration";
