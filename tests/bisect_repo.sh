# tests/bisect_repo.sh: sourced by the bisect tests (t800, t810) after
# lib.sh: small git histories whose commits say, in the file `mod`, how the
# fixture `seeded` fails; fixed names and dates give the same hashes every
# time, so the same seeds.
S=$FIX/seeded
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
export GIT_AUTHOR_DATE='2024-01-01T00:00:00Z' GIT_COMMITTER_DATE='2024-01-01T00:00:00Z'
unset GIT_DIR GIT_WORK_TREE

# make_repo DIR N CULPRIT LINE [BROKEN [BASE]]: commits c0..cN; from cCULPRIT on,
# mod holds LINE; commit BROKEN has a file `broken` (the test's build fails
# there); BASE is in mod from c0 on.
make_repo() {
	local d=$1 n=$2 k=$3 line=$4 broken=${5:--1} base=${6:-}
	rm -rf "$d" && mkdir -p "$d" && git -C "$d" init -q && git -C "$d" config commit.gpgsign false
	if [ -n "$base" ]; then echo "$base" > "$d/mod"; else : > "$d/mod"; fi
	echo 0 > "$d/n"
	git -C "$d" add . && git -C "$d" commit -qm "c0"
	for i in $(seq 1 "$n"); do
		echo "$i" > "$d/n"
		[ "$i" = "$k" ] && echo "$line" >> "$d/mod"
		if [ "$i" = "$broken" ]; then touch "$d/broken"; git -C "$d" add broken; else git -C "$d" rm -q --ignore-unmatch broken; fi
		git -C "$d" commit -qam "c$i"
	done
}
hash_of() { git -C "$1" rev-parse "$2"; }
