/*
 * fdpass.h - one byte and at most one descriptor over a unix socket
 * (SCM_RIGHTS): how the sandbox's init hands its pty master to the
 * supervisor (child_pty.c, pty.c) and how the process that joins a running
 * sandbox's network namespace hands back its sockets (netns.c).
 */
#ifndef AT_SANDBOX_FDPASS_H
#define AT_SANDBOX_FDPASS_H

/*
 * Send byte and, when fd >= 0, fd with it. Async-signal-safe (the child's
 * side calls it between clone and execve). 0, or -1 with errno.
 */
int at_fd_send(int sock, char byte, int fd);

/*
 * Receive one byte into *byte and the descriptor sent with it into *fd
 * (close-on-exec; -1 when none came). Every further descriptor the peer
 * sent is closed; a truncated control message fails with EPROTO and keeps
 * nothing. 1 when a message came, 0 at end of file, -1 with errno.
 */
int at_fd_recv(int sock, char *byte, int *fd);

#endif
