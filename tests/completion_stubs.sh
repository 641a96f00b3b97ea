# Sourced by the bash completion tests: bash-completion's helpers stubbed,
# so that only our function is under test, then data/bash-completion/mapscope
# loaded.  DATA is the data folder.
_init_completion() {
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	words=("${COMP_WORDS[@]}")
	cword=$COMP_CWORD
}
_filedir() { :; }
compopt() { :; }
complete() { :; }
# shellcheck source=/dev/null
. "$DATA/bash-completion/mapscope"
