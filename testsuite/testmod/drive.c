/*
 * drive: the workload of the dwarf-run tier, a static program run in the
 * guest as a script's -c command. It prints nothing on success (output of
 * its own would race the script's); errors go to stderr, exit status 1.
 *
 *   drive CMD [ARG]         one write of "CMD [ARG]" to /proc/tapir_testmod
 *                           (tapir_testmod.c lists the commands: ints,
 *                           uints, misc, eight, struct, null, string,
 *                           ustr TEXT, locals N, inline, recurse N, fail,
 *                           sleep MS, globals V, nokprobe, find, pieces)
 *   drive repeat K CMD [ARG]  the same K times
 *   drive sleepers N MS     N processes at once, each "sleep MS"
 *   drive open PATH         open(PATH, O_RDONLY) and close
 *   drive read PATH N       open PATH, one read(fd, buf, N), close
 *   drive write PATH TEXT   open PATH for writing (created, truncated),
 *                           one write of TEXT, close
 *   drive sys               getppid() once
 *   drive tcp PORT          brings lo up, then over 127.0.0.1:PORT a
 *                           listener, a connect, an accept, one write
 *                           of "hello" (5 bytes) and one read of it, and
 *                           the three sockets closed: client, accepted,
 *                           listener
 *   drive udp PORT          brings lo up, then one datagram "hello" from
 *                           a connected socket to one bound to
 *                           127.0.0.1:PORT, received with recvfrom; the
 *                           sender disconnected (connect AF_UNSPEC)
 *   drive A... + B... + ...  the commands A, B, ... one after the other
 *
 * After the last command drive waits 300 ms before it exits, so that the
 * loader has read what the probes printed before it hears that its -c
 * command ended: without the pause, staprun 4.8 lost the last line of
 * output in about one run in twelve (a probe hit just before the exit).
 *
 * Build: gcc -static -O2 -o drive drive.c (testsuite/testmod/build).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define CTL "/proc/tapir_testmod"

static int die(const char *what, const char *arg)
{
	fprintf(stderr, "drive: %s %s: %s\n", what, arg, strerror(errno));
	return 1;
}

static int command(int argc, char **argv)
{
	char buf[64];
	int fd, n;

	if (argc == 1)
		n = snprintf(buf, sizeof(buf), "%s", argv[0]);
	else
		n = snprintf(buf, sizeof(buf), "%s %s", argv[0], argv[1]);
	if (n < 0 || n >= (int)sizeof(buf)) {
		fprintf(stderr, "drive: command too long\n");
		return 1;
	}
	fd = open(CTL, O_WRONLY);
	if (fd < 0)
		return die("open", CTL);
	if (write(fd, buf, n) != n) {
		close(fd);
		return die("write", buf);
	}
	close(fd);
	return 0;
}

/* The loopback interface up (the guest's init leaves it down). */
static int lo_up(int s)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		return -1;
	if (ifr.ifr_flags & IFF_UP)
		return 0;
	ifr.ifr_flags |= IFF_UP;
	return ioctl(s, SIOCSIFFLAGS, &ifr);
}

/* One TCP exchange over loopback, in this process alone (no race). */
static int tcp(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char buf[16];
	int l, c, s;

	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0)
		return die("socket", "listener");
	if (lo_up(l) < 0)
		return die("ioctl", "lo");
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 1) < 0)
		return die("listen", "127.0.0.1");
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)) < 0)
		return die("connect", "127.0.0.1");
	s = accept(l, NULL, NULL);
	if (s < 0)
		return die("accept", "127.0.0.1");
	if (write(c, "hello", 5) != 5)
		return die("write", "socket");
	if (read(s, buf, sizeof(buf)) != 5)
		return die("read", "socket");
	close(c);
	close(s);
	close(l);
	return 0;
}

/* One UDP datagram over loopback, in this process alone. */
static int udp(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr none = { .sa_family = AF_UNSPEC };
	char buf[16];
	int r, t;

	r = socket(AF_INET, SOCK_DGRAM, 0);
	if (r < 0)
		return die("socket", "receiver");
	if (lo_up(r) < 0)
		return die("ioctl", "lo");
	if (bind(r, (struct sockaddr *)&a, sizeof(a)) < 0)
		return die("bind", "127.0.0.1");
	t = socket(AF_INET, SOCK_DGRAM, 0);
	if (t < 0 || connect(t, (struct sockaddr *)&a, sizeof(a)) < 0)
		return die("connect", "127.0.0.1");
	if (send(t, "hello", 5, 0) != 5)
		return die("send", "socket");
	if (recvfrom(r, buf, sizeof(buf), 0, NULL, NULL) != 5)
		return die("recvfrom", "socket");
	if (connect(t, &none, sizeof(none)) < 0)
		return die("disconnect", "socket");
	close(t);
	close(r);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: drive CMD [ARG] | repeat K CMD [ARG] | sleepers N MS |\n"
			"       open PATH | read PATH N | write PATH TEXT | sys |\n"
			"       tcp PORT | udp PORT\n");
	return 2;
}

static int run(int argc, char **argv)
{
	if (argc < 2 || argc > 5)
		return usage();
	if (!strcmp(argv[1], "open") && argc == 3) {
		int fd = open(argv[2], O_RDONLY);

		if (fd < 0)
			return die("open", argv[2]);
		close(fd);
		return 0;
	}
	if (!strcmp(argv[1], "read") && argc == 4) {
		char buf[4096];
		size_t n = strtoul(argv[3], NULL, 10);
		int fd = open(argv[2], O_RDONLY);

		if (fd < 0)
			return die("open", argv[2]);
		if (n > sizeof(buf))
			n = sizeof(buf);
		if (read(fd, buf, n) < 0)
			return die("read", argv[2]);
		close(fd);
		return 0;
	}
	if (!strcmp(argv[1], "write") && argc == 4) {
		size_t n = strlen(argv[3]);
		int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0)
			return die("open", argv[2]);
		if (write(fd, argv[3], n) != (ssize_t)n)
			return die("write", argv[2]);
		close(fd);
		return 0;
	}
	if (!strcmp(argv[1], "sys") && argc == 2) {
		getppid();
		return 0;
	}
	if (!strcmp(argv[1], "tcp") && argc == 3)
		return tcp(atoi(argv[2]));
	if (!strcmp(argv[1], "udp") && argc == 3)
		return udp(atoi(argv[2]));
	if (!strcmp(argv[1], "repeat") && argc >= 4) {
		int k = atoi(argv[2]);

		for (int i = 0; i < k; i++)
			if (command(argc - 3, argv + 3))
				return 1;
		return 0;
	}
	if (!strcmp(argv[1], "sleepers") && argc == 4) {
		int n = atoi(argv[2]), st, bad = 0;
		char *cmd[2] = { "sleep", argv[3] };

		for (int i = 0; i < n; i++) {
			pid_t p = fork();

			if (p < 0)
				return die("fork", "");
			if (p == 0)
				_exit(command(2, cmd));
		}
		while (wait(&st) > 0)
			if (!WIFEXITED(st) || WEXITSTATUS(st))
				bad = 1;
		return bad;
	}
	if (argc <= 3)
		return command(argc - 1, argv + 1);
	return usage();
}

int main(int argc, char **argv)
{
	int i = 1, j, rc;

	/* run() reads its words from argv[1]: each segment is passed with
	 * the word before it standing in for argv[0] */
	do {
		for (j = i; j < argc && strcmp(argv[j], "+"); j++)
			;
		rc = run(j - i + 1, argv + i - 1);
		if (rc)
			return rc;
		i = j + 1;
	} while (i < argc);
	usleep(300000);
	return 0;
}
