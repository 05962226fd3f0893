/*
 * seccomp_gen.c - a step of the build, not of agenttask: the system call
 * policy (seccomp.c) compiled to BPF once, with the build's libseccomp,
 * into the header that seccomp_built.c holds (AT_SB_SECCOMP_PROGRAM). A run
 * then loads that program as it is instead of building it with libseccomp
 * each time, which took 0.1 to 0.25 ms of every run's start. The program is
 * the same at run time (test_seccomp compares them); doctor still compiles
 * it, to report the library.
 *
 *   at_seccomp_gen OUT.h
 */
#include "sandbox/internal.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	struct at_error err = AT_ERROR_INIT;
	struct sock_fprog prog = { 0, NULL };
	unsigned short i;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: at_seccomp_gen OUT.h\n");
		return 2;
	}
	if (at_sb_seccomp_compile(&prog, &err) < 0) {
		fprintf(stderr, "at_seccomp_gen: %s\n", err.msg);
		return 1;
	}
	if (!(f = fopen(argv[1], "w"))) {
		perror(argv[1]);
		at_sb_seccomp_release(&prog);
		return 1;
	}
	fprintf(f, "/* Made by sandbox/seccomp_gen.c at build time: do not edit. */\n"
		   "#define AT_SB_SECCOMP_PROGRAM { \\\n");
	for (i = 0; i < prog.len; i++)
		fprintf(f, "\t{ 0x%04x, %u, %u, 0x%08x }, \\\n", prog.filter[i].code,
			prog.filter[i].jt, prog.filter[i].jf, prog.filter[i].k);
	fprintf(f, "}\n");
	at_sb_seccomp_release(&prog);
	return fclose(f) == 0 ? 0 : 1;
}
