# SPDX-License-Identifier: BSD-3-Clause
# ports.sh - base ports for the test clusters (sourced by slurmcluster and
# fluxcluster), so two test runs at once never share one.
#
# claim_port DIR KIND FIRST: print the first of FIRST, FIRST+20, ...
# FIRST+180 that no running cluster of KIND holds, and hold it for DIR:
# /run/scr-KINDcluster.PORT names DIR.  A lock whose owner directory is gone
# (a cluster not stopped) is stale and taken over.  DIR/claiming marks a
# cluster still being set up.  Records the port in DIR/port.
claim_port() {
	local dir="$1" kind="$2" first="$3" base lock owner
	touch "$dir/claiming"
	for base in $(seq "$first" 20 $((first + 180))); do
		lock=/run/scr-${kind}cluster.$base
		owner=$(cat "$lock" 2>/dev/null || true)
		if [ -n "$owner" ] && [ ! -e "$owner/port" ] && [ ! -e "$owner/claiming" ]; then
			rm -f "$lock"
		fi
		# a cluster this script did not lock (or a stranger) may listen there
		if ss -Htln | awk '{print $4}' | grep -Eq ":($(seq -s '|' "$base" $((base + 19))))\$"; then
			continue
		fi
		if (set -o noclobber && echo "$dir" >"$lock") 2>/dev/null; then
			echo "$base" >"$dir/port"
			rm -f "$dir/claiming"
			echo "$base"
			return 0
		fi
	done
	rm -f "$dir/claiming"
	echo "no free base port for a $kind cluster ($first-$((first + 180)) held: /run/scr-${kind}cluster.*)" >&2
	return 1
}

# release_port DIR KIND: give up DIR's port
release_port() {
	if [ -r "$1/port" ]; then rm -f "/run/scr-$2cluster.$(cat "$1/port")"; fi
}
