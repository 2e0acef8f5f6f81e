# Sourced by ci/series/make.sh and ci/series/mail.sh.
#
# includer_of REPO COMMIT FILE: the .c outside tools/ that #includes FILE
# by a path relative to its own directory, in COMMIT of the git repository
# REPO (fs/proc/namespaces.c for fs/proc/tests/proc_ns_kunit.c, fs/nsfs.c for
# fs/tests/nsfs_kunit.c: a KUnit suite built into the file it tests), else
# FILE itself.
includer_of() {
	local repo=$1 c=$2 f=$3 hit file path
	while IFS= read -r hit; do
		file=${hit%%:*} path=$(sed -n 's/^[^:]*:#include "\([^"]*\)".*/\1/p' <<<"$hit")
		if [ "$(realpath -m --relative-to=/ "/$(dirname "$file")/$path")" = "$f" ]; then
			echo "$file"; return
		fi
	done < <(git -C "$repo" grep -E "^#include \"([^\"]*/)?$(basename "$f")\"" "$c" -- '*.c' ':!tools' |
		 sed 's/^[^:]*://')
	echo "$f"
}
