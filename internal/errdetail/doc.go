// Package errdetail holds the one error shape the nodelife packages share: a
// sentinel error with a sentence of detail, so that errors.Is finds the
// sentinel and the message says what was wrong with which value.
package errdetail
