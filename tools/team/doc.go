// Package team holds the tools by which agents talk to each other:
// SendMessage (to a running named background agent or a team member, in
// Claude Code's shape) and, behind the tools.teams setting, TeamCreate and
// TeamDelete, which start and stop a named team of background agents on the
// Agent tool's runner. A Hub keeps the mailboxes of running agents and the
// teams; the session reports it in toolhost/status.
package team
