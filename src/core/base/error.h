/*
 * error.h - errors as values.
 *
 * Core code never prints and never exits.  A call that can fail returns 0 on
 * success or a negative enum ms_errcode, and fills a caller-provided struct
 * ms_error with the code, the errno behind it (0 when none) and a one-line
 * message naming the PID and the cause.  Front ends decide how to show it and
 * which exit status it maps to (ms_error_exit_status).
 *
 * MS_END is not a failure: it ends an iteration (the kernel's ENOENT).
 */
#ifndef MAPSCOPE_ERROR_H
#define MAPSCOPE_ERROR_H

enum ms_errcode {
	MS_OK = 0,
	MS_END = -1,          /* no (more) matching mapping */
	MS_ERR_NOPROC = -2,   /* no such process */
	MS_ERR_NOACCESS = -3, /* ptrace read access denied */
	MS_ERR_EXITED = -4,   /* the process exited while we looked */
	MS_ERR_EXECED = -5,   /* the process exec'd: reopen to see the new image */
	MS_ERR_NOMM = -6,     /* kernel thread or zombie: no user address space */
	MS_ERR_NOTSUP = -7,   /* the kernel lacks the interface asked for */
	MS_ERR_IO = -8,       /* a system call failed unexpectedly */
	MS_ERR_NOMEM = -9,
	MS_ERR_INVAL = -10,   /* bad argument from the caller */
	MS_ERR_PROTO = -11,   /* the kernel answered something impossible */
	MS_ERR_LIMIT = -12,   /* a size bound was hit */
};

#define MS_ERRMSG_MAX 256

struct ms_error {
	enum ms_errcode code;
	int sys_errno;
	char msg[MS_ERRMSG_MAX];
};

/* Fill err (if not NULL) and return code; printf-style message. */
int ms_error_set(struct ms_error *err, enum ms_errcode code, int sys_errno,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

void ms_error_clear(struct ms_error *err);

/* A short fixed name for a code ("exited", "no access", ...). */
const char *ms_errcode_name(enum ms_errcode code);

/* The exit statuses of every front end, as the man page lists them. */
#define MS_EXIT_OK 0
#define MS_EXIT_FAIL 1
#define MS_EXIT_USAGE 2

/* 0 for success, 2 for a caller mistake, 1 for anything about the process
 * (missing, unreadable, exited, or its data could not be read). */
int ms_error_exit_status(enum ms_errcode code);

#endif
