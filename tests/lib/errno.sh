# shellcheck shell=bash
# tests/lib/errno.sh: what a write(2) returns, for the guest tests that
# check an interface's errors (hostile.sh, pool.sh).

# write_errno FILE PERL-STRING: one write(2) of the bytes the Perl string
# literal evaluates to (escapes and all: "zero\n", "z" x 4096) to FILE,
# opened as `>` does. Prints "ok N" (N bytes taken), or the errno's name,
# or "open:ERRNO".
# shellcheck disable=SC2016,SC2034 # Perl code; used by the sourcing file
write_errno=(perl -MErrno -e '
	sub name {
		return "EOPNOTSUPP" if $!{EOPNOTSUPP}; # = ENOTSUP
		for (sort keys %!) { return $_ if $!{$_} }
		return "errno" . ($! + 0);
	}
	my $data = eval $ARGV[1];
	die "bad data $ARGV[1]: $@" if $@;
	open(my $fh, ">", $ARGV[0]) or do { print "open:", name(), "\n"; exit 0 };
	my $n = syswrite($fh, $data);
	print defined($n) ? "ok $n\n" : name() . "\n";
')
