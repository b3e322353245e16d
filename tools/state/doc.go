// Package state holds the tools that change only the session's own state
// rather than files or the network: TodoWrite (the task list the client
// shows), AskUserQuestion (questions put to the user through the host),
// Config and ExitPlanMode. Their results are small texts for the model; what
// the user sees travels through tools.Host (notifications and dialogs).
package state
