/*
 * Unit tests for app/run.c as a long-lived front end (an MCP server) uses
 * it: a run with captured output, a run cancelled from another thread
 * through its cancel descriptor, and one network allowlist used for two
 * runs in turn. Needs user namespaces, like every sandbox
 * test: skipped where there are none, a failure when CI=true.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "app/net.h"
#include "app/new.h"
#include "app/run.h"
#include "core/fs.h"

extern char **environ;

struct repo {
	char dir[PATH_MAX];
	struct at_app app;
};

static int setup(void **state)
{
	struct repo *r = calloc(1, sizeof(*r));
	struct at_app_new_opts o = { "t", NULL, { NULL, NULL } };
	struct at_app_new_result res;
	struct at_error err = AT_ERROR_INIT;
	char tmpl[] = "/tmp/at-test-run.XXXXXX", cmd[PATH_MAX + 256];

	if (!r || !mkdtemp(tmpl) || !realpath(tmpl, r->dir))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && git init -q -b main && git -c user.name=t -c user.email=t@e "
		 "commit -q --allow-empty -m first", r->dir);
	if (system(cmd) != 0)
		return -1;
	r->app.dir = r->dir;
	r->app.environ = environ;
	if (at_app_new(&r->app, &o, &res, &err) < 0)
		return -1;
	at_app_new_result_release(&res);
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct repo *r = *state;
	struct at_error err = AT_ERROR_INIT;

	at_rmtree(r->dir, &err);
	free(r);
	return 0;
}

static void need_user_namespaces(void)
{
	if (system("unshare -Ur true >/dev/null 2>&1") == 0)
		return;
	if (getenv("CI") && strcmp(getenv("CI"), "true") == 0)
		fail_msg("user namespaces are unavailable, and CI=true forbids skipping");
	skip();
}

static void test_run__captures_the_output(void **state)
{
	struct repo *r = *state;
	char *argv[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	struct at_app_run_opts o = AT_APP_RUN_OPTS_INIT;
	struct at_app_run_result res;
	struct at_error err = AT_ERROR_INIT;

	need_user_namespaces();
	o.name = "t";
	o.argv = argv;
	o.capture = true;
	assert_int_equal(at_app_run(&r->app, &o, &res, &err), 0);
	assert_true(res.attempted);
	assert_int_equal(res.exit_code, 3);
	assert_string_equal(res.run.out, "out\n");
	assert_string_equal(res.run.err, "err\n");
	assert_false(res.run.cancelled);
	at_app_run_result_release(&res);
}

struct canceller {
	int fd;
	unsigned int after_ms;
};

static void *cancel_later(void *arg)
{
	const struct canceller *c = arg;
	struct timespec ts = { c->after_ms / 1000, (long)(c->after_ms % 1000) * 1000000 };
	uint64_t one = 1;

	nanosleep(&ts, NULL);
	if (write(c->fd, &one, sizeof(one)) != sizeof(one))
		abort();
	return NULL;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * What: a command that would run for a minute, cancelled from another
 * thread (an MCP notifications/cancelled). Must: at_app_run returns soon,
 * the command and everything it started killed, the result says cancelled.
 * The other thread blocks SIGCHLD, as sandbox.h asks of a program with
 * threads; the supervisor reaps the sandbox without it all the same.
 */
static void test_run__is_cancelled_from_another_thread(void **state)
{
	struct repo *r = *state;
	char *argv[] = { "sh", "-c", "sleep 60 & sleep 60", NULL };
	struct at_app_run_opts o = AT_APP_RUN_OPTS_INIT;
	struct at_app_run_result res;
	struct at_error err = AT_ERROR_INIT;
	struct canceller c = { eventfd(0, EFD_CLOEXEC), 300 };
	sigset_t all, old;
	pthread_t th;
	int64_t t0;

	need_user_namespaces();
	assert_true(c.fd >= 0);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	assert_int_equal(pthread_create(&th, NULL, cancel_later, &c), 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	o.name = "t";
	o.argv = argv;
	o.cancel_fd = c.fd;
	t0 = now_ms();
	assert_int_equal(at_app_run(&r->app, &o, &res, &err), 0);
	assert_true(now_ms() - t0 < 20000);
	assert_true(res.run.cancelled);
	assert_false(res.run.timed_out);
	assert_int_equal(res.exit_code, 128 + SIGKILL);
	pthread_join(th, NULL);
	close(c.fd);
	at_app_run_result_release(&res);
}

/*
 * What: a front end asks for the host's network and an allowlist at once,
 * or --deny-private with nothing allowed. Must: refused before anything
 * runs (AT_EUSAGE, not attempted), whatever the front end checked itself.
 */
static void test_run__refuses_an_allowlist_with_the_hosts_network(void **state)
{
	struct repo *r = *state;
	char *argv[] = { "true", NULL };
	struct at_app_run_opts o = AT_APP_RUN_OPTS_INIT;
	struct at_app_run_result res;
	struct at_error err = AT_ERROR_INIT;
	struct at_app_net *net;

	assert_int_equal(at_app_net_new(&net, &err), 0);
	o.name = "t";
	o.argv = argv;
	o.proxy = net;
	at_app_net_deny_private(net);
	assert_int_equal(at_app_run(&r->app, &o, &res, &err), AT_EUSAGE);
	assert_non_null(strstr(err.msg, "--deny-private"));
	assert_false(res.attempted);
	at_app_run_result_release(&res);

	at_error_clear(&err);
	assert_int_equal(at_app_net_allow(net, "example.org", &err), 0);
	o.net = true;
	assert_int_equal(at_app_run(&r->app, &o, &res, &err), AT_EUSAGE);
	assert_non_null(strstr(err.msg, "--net"));
	assert_false(res.attempted);
	at_app_run_result_release(&res);
	at_app_net_free(net);
}

/*
 * What: one allowlist, as an MCP server would keep it, used for two runs.
 * Must: each run has the proxy (its variables in the command's
 * environment, the proxy started and stopped: a report after each), and
 * the second starts afresh (no record of the first kept, nothing leaked).
 */
static void test_run__one_allowlist_serves_two_runs(void **state)
{
	struct repo *r = *state;
	char *argv[] = { "sh", "-c", "test \"$HTTPS_PROXY\" = http://127.0.0.1:3128", NULL };
	struct at_app_run_opts o = AT_APP_RUN_OPTS_INIT;
	struct at_app_net_report rep;
	struct at_app_run_result res;
	struct at_error err = AT_ERROR_INIT;
	struct at_app_net *net;
	int i;

	need_user_namespaces();
	assert_int_equal(at_app_net_new(&net, &err), 0);
	assert_int_equal(at_app_net_allow(net, "example.org", &err), 0);
	o.name = "t";
	o.argv = argv;
	o.proxy = net;
	for (i = 0; i < 2; i++) {
		assert_int_equal(at_app_run(&r->app, &o, &res, &err), 0);
		assert_true(res.attempted);
		assert_int_equal(res.exit_code, 0);
		at_app_net_report(net, &rep);
		assert_true(rep.active);
		assert_true(rep.start_us > 0);
		assert_int_equal(rep.nconns, 0);
		at_app_run_result_release(&res);
	}
	at_app_net_free(net);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_run__captures_the_output, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run__refuses_an_allowlist_with_the_hosts_network,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_run__one_allowlist_serves_two_runs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_run__is_cancelled_from_another_thread, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
