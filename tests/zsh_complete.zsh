# zsh -f tests/zsh_complete.zsh DIR < LINES: for each line of input, what
# zsh's completion system offers after typing it and Tab, with the
# completion functions of DIR first in fpath.  Prints "== LINE", then each
# match on a line.  An interactive zsh runs on a pseudo-terminal (zpty);
# compadd is wrapped to print the matches each call adds, before zsh lists
# or inserts them.
zmodload zsh/zpty || exit 2
zpty z zsh -f -i
zpty -w z "PS1=''; PS2=''; RPS1=''; fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'compadd() { local -a m; builtin compadd -O m "$@"; (( $#m )) && print -r -- "<m>${(pj:<m>:)m}</m>"; builtin compadd "$@"; }'
# Tab completes, then says so: keys typed ahead of a completion change what
# it does (zsh skips work while input is pending), so each line waits.
zpty -w z 'ms-tab() { zle complete-word; print -r -- "<tab""done>"; }; zle -N ms-tab; bindkey "^I" ms-tab'
zpty -w z 'zstyle ":completion:*" menu no; LISTMAX=0; print -r -- "<re""ady>"'
zpty -r z out '*<ready>*' || exit 3
while IFS= read -r query; do
	# The markers are split in the commands so that their echo never matches.
	zpty -w -n z "$query"$'\t'
	zpty -r z out '*<tabdone>*' || exit 4
	zpty -w -n z $'\C-e\C-u'
	print -r -- "== $query"
	print -r -- "$out" | grep -o '<m>[^<]*' | sed 's/^<m>//' | tr -d '\r' | sort -u
done
zpty -d z
