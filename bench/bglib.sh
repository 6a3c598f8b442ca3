# bench/bglib.sh: sourced (after `tmp` is set to a scratch folder) by the
# bench scripts that run one tool at a time in its own session in the
# background. $bg is that session's leader; stop_bg ends the whole session
# (TERM, then KILL); on exit the session is ended and $tmp removed.
bg=
stop_bg() {
	if [ -n "$bg" ]; then
		kill -TERM -- "-$bg" 2>/dev/null
		sleep 0.2
		kill -KILL -- "-$bg" 2>/dev/null
		wait "$bg" 2>/dev/null
		bg=
	fi
}
trap 'stop_bg; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
