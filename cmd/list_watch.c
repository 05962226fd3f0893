/*
 * list_watch.c - the live view of every task (list_watch.h).
 */
#include "cmd/list_watch.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "app/live.h"
#include "cmd/commands.h"
#include "cmd/progress.h"
#include "core/esc.h"
#include "core/util.h"

#define REFRESH_MS 1000

static volatile sig_atomic_t quit_signal, resized;

static void on_quit(int sig)
{
	quit_signal = sig;
}

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

/* The terminal as it was, and the handlers before ours: all put back on the way out. */
struct screen {
	struct termios saved;
	struct sigaction old[4];
	bool color;
	int cols, rows;
};

static const int signals[4] = { SIGINT, SIGTERM, SIGHUP, SIGWINCH };

static void screen_size(struct screen *s)
{
	struct winsize ws;

	s->cols = 80;
	s->rows = 24;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
		s->cols = ws.ws_col;
		s->rows = ws.ws_row;
	}
}

static int screen_enter(struct screen *s)
{
	struct sigaction sa;
	struct termios raw;
	size_t i;

	if (tcgetattr(STDIN_FILENO, &s->saved) < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 4; i++) {
		sa.sa_handler = signals[i] == SIGWINCH ? on_winch : on_quit;
		sigaction(signals[i], &sa, &s->old[i]);
	}
	/* Keys one at a time, not echoed; ^C and ^Z come as keys (no ISIG): q and ^C quit. */
	raw = s->saved;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ISIG | IEXTEN);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw);
	/* The alternate screen, the cursor hidden. */
	fputs("\033[?1049h\033[?25l", stdout);
	fflush(stdout);
	screen_size(s);
	return 0;
}

static void screen_leave(struct screen *s)
{
	size_t i;

	fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &s->saved);
	for (i = 0; i < 4; i++)
		sigaction(signals[i], &s->old[i], NULL);
}

static void duration(char *buf, size_t size, int64_t secs)
{
	if (secs < 0)
		secs = 0;
	if (secs < 3600)
		snprintf(buf, size, "%lld:%02lld", (long long)secs / 60, (long long)secs % 60);
	else
		snprintf(buf, size, "%lldh%02lld", (long long)secs / 3600, (long long)secs % 3600 / 60);
}

/* The state column, as wide as its longest ("exited 137"). */
static void state_text(const struct at_app_live *l, char *buf, size_t size, const char **color)
{
	*color = AT_COLOR_GREEN;
	if (l->state == AT_LIVE_EXITED) {
		snprintf(buf, size, "exited %d", l->exit_code);
		*color = l->exit_code == 0 ? "" : AT_COLOR_RED;
	} else if (l->state == AT_LIVE_WAITING) {
		snprintf(buf, size, "waiting");
		*color = AT_COLOR_YELLOW;
	} else {
		snprintf(buf, size, "%s", at_live_state_name(l->state));
		if (l->state == AT_LIVE_IDLE)
			*color = "";
	}
}

/* One task's line, cut to the width (the command last, escaped, cut by units). */
static void print_task(FILE *f, const struct screen *s, const struct at_app_watch_entry *e,
		       int64_t now)
{
	const struct at_app_live *l = &e->live;
	char state[32], when[32] = "", cpu[32] = "", mem[32] = "", change[64] = "-", gate[8] = "-";
	char ports[96] = "", cmd[512];
	const char *color;
	size_t i, used = 0, width;
	int n;

	state_text(l, state, sizeof(state), &color);
	if (l->state == AT_LIVE_RUNNING || l->state == AT_LIVE_WAITING) {
		duration(when, sizeof(when), now - l->since);
		if (l->has_usage) {
			snprintf(cpu, sizeof(cpu), "%.1fs", (double)l->cpu_ms / 1000);
			at_cli_human_bytes(mem, sizeof(mem), l->memory_bytes);
		}
	} else if (l->state == AT_LIVE_EXITED) {
		duration(when, sizeof(when), now - l->exited_at);
		strcat(when, " ago");
	}
	if (l->has_change)
		snprintf(change, sizeof(change), "%zu +%zu -%zu", l->files, l->additions,
			 l->deletions);
	if (l->has_gate)
		snprintf(gate, sizeof(gate), "%s", l->gate_passed ? "pass" : "FAIL");
	for (i = 0; i < l->nports && used + 12 < sizeof(ports); i++)
		used += (size_t)snprintf(ports + used, sizeof(ports) - used, "%s%u>%u", i ? "," : "",
					 (unsigned)l->ports[i].port, (unsigned)l->ports[i].host_port);
	n = fprintf(f, "%-16.16s %s%-10s%s %-10s %-8s %-12s %-14s %-4s %-12s ", e->task.name,
		    at_cli_c(s->color && color[0], color), state,
		    at_cli_c(s->color && color[0], AT_COLOR_RESET), when, cpu, mem, change, gate,
		    ports[0] ? ports : "-");
	n -= s->color && color[0] ? (int)(strlen(color) + strlen(AT_COLOR_RESET)) : 0;
	width = s->cols > n ? (size_t)(s->cols - n) : 0;
	at_esc(cmd, width + 1 < sizeof(cmd) ? width + 1 : sizeof(cmd), l->command);
	if (width >= 4)
		fputs(cmd, f);
	fputs("\033[K\r\n", f);
}

static void draw(const struct screen *s, const struct at_app_watch_entry *v, size_t n,
		 const struct at_error *err)
{
	int64_t now = (int64_t)time(NULL);
	char clock[AT_TIME_MAX];
	size_t i, rows = s->rows > 3 ? (size_t)s->rows - 3 : 1;

	at_time_iso(clock, sizeof(clock), now);
	printf("\033[H%sagenttask list --watch%s  %zu task%s  %s  (q to quit)\033[K\r\n",
	       at_cli_c(s->color, AT_COLOR_BOLD), at_cli_c(s->color, AT_COLOR_RESET), n,
	       n == 1 ? "" : "s", clock);
	printf("%-16s %-10s %-10s %-8s %-12s %-14s %-4s %-12s %s\033[K\r\n", "NAME", "STATE",
	       "FOR", "CPU", "MEMORY", "CHANGE", "GATE", "PORTS", "COMMAND");
	for (i = 0; i < n && i < rows; i++)
		print_task(stdout, s, &v[i], now);
	if (err && at_error_isset(err)) {
		char msg[300];

		printf("agenttask: %s\033[K\r\n", at_esc(msg, sizeof(msg), err->msg));
	}
	fputs("\033[J", stdout);
	fflush(stdout);
}

/* Until q, ^C, SIGTERM or SIGHUP: poll, draw, wait a second (or a key, or a resize). */
static int watch_loop(struct at_app_watch *w, struct screen *s, struct at_error *err)
{
	struct pollfd pfd = { STDIN_FILENO, POLLIN, 0 };
	const struct at_app_watch_entry *v;
	char key;
	size_t n;

	for (;;) {
		struct at_error perr = AT_ERROR_INIT;

		if (at_app_watch_poll(w, &v, &n, &perr) < 0) {
			v = NULL;
			n = 0;
		}
		draw(s, v, n, &perr);
		if (poll(&pfd, 1, REFRESH_MS) < 0 && errno != EINTR)
			return at_error_sys(err, AT_ESYS, "cannot read the terminal");
		if (quit_signal)
			return 0;
		if (resized) {
			resized = 0;
			screen_size(s);
		}
		while ((pfd.revents & POLLIN) && read(STDIN_FILENO, &key, 1) == 1)
			if (key == 'q' || key == 'Q' || key == 3 /* ^C */)
				return 0;
		if (pfd.revents & (POLLHUP | POLLERR))
			return 0;
	}
}

int at_cli_list_watch(const struct at_app *app, bool color)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_app_watch *w = NULL;
	struct screen s;
	int rc;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return at_cli_usage("list", "option '--watch' needs a terminal");
	if (at_app_watch_open(app, true, &w, &err) < 0)
		return at_cli_fail(&err);
	memset(&s, 0, sizeof(s));
	s.color = color;
	if (screen_enter(&s) < 0) {
		at_app_watch_free(w);
		return at_cli_usage("list", "option '--watch' needs a terminal");
	}
	rc = watch_loop(w, &s, &err);
	screen_leave(&s);
	at_app_watch_free(w);
	if (rc < 0)
		return at_cli_fail(&err);
	/* Ended by a signal: as the signal would have ended it, terminal put back first. */
	if (quit_signal && quit_signal != SIGINT) {
		signal(quit_signal, SIG_DFL);
		raise(quit_signal);
	}
	return AT_EXIT_OK;
}
