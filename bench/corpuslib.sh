# bench/corpuslib.sh: sourced by the bench scripts that run the bugs corpus
# (../shared/corpora/bugs: 30 single-file C programs written for jostle, MIT,
# each with one concurrency bug and a --fixed mode; its README gives each
# program's measured plain failure rate).
#
# corpus_find: sets CORPUS, when empty, to the first corpus folder found next
#   to the repository (or its main worktree) or in /work/shared; 1 if none.
# corpus_build DIR: builds it OUT OF TREE with the corpus's own Makefile and
#   flags (the corpus may be read-only): copies Makefile and *.c to DIR/src
#   (cp -u: only what changed) and runs make there; the binaries are
#   DIR/src/build/NAME, the log DIR/build.log. 1 when it does not build.
# corpus_names: the program names, one a line (from the sources).

corpus_find() {
	local c
	[ -n "${CORPUS:-}" ] || for c in "$PWD/../shared/corpora/bugs" \
		"$(git rev-parse --path-format=absolute --git-common-dir 2>/dev/null)/../../shared/corpora/bugs" \
		/work/shared/corpora/bugs; do
		[ -f "$c/Makefile" ] && { CORPUS=$c; break; }
	done
	[ -n "${CORPUS:-}" ] && [ -f "$CORPUS/Makefile" ] || return 1
	CORPUS=$(cd "$CORPUS" && pwd)
}

corpus_build() {
	local dir=$1
	case $dir/ in "$CORPUS"/*)
		echo "corpus build folder '$dir' is inside the corpus: build out of tree" >&2
		return 1 ;;
	esac
	mkdir -p "$dir/src" && cp -u "$CORPUS"/Makefile "$CORPUS"/*.c "$dir/src/" &&
		make -s -C "$dir/src" > "$dir/build.log" 2>&1
}

corpus_names() {
	local f
	for f in "$CORPUS"/*.c; do
		[ -f "$f" ] && basename "$f" .c
	done
}
