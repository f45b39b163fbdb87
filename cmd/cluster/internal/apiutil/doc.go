// Package apiutil holds the small API helpers the agent, the controller
// and the election candidate share: a pod condition setter and the mapping
// from API errors to the outcomes of lease.Heartbeat and lease.Elector.
package apiutil
