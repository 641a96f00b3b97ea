#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"

int ms_error_set(struct ms_error *err, enum ms_errcode code, int sys_errno,
		 const char *fmt, ...)
{
	if (err) {
		va_list ap;

		err->code = code;
		err->sys_errno = sys_errno;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

void ms_error_clear(struct ms_error *err)
{
	if (err) {
		err->code = MS_OK;
		err->sys_errno = 0;
		err->msg[0] = '\0';
	}
}

const char *ms_errcode_name(enum ms_errcode code)
{
	switch (code) {
	case MS_OK: return "ok";
	case MS_END: return "end";
	case MS_ERR_NOPROC: return "no such process";
	case MS_ERR_NOACCESS: return "no access";
	case MS_ERR_EXITED: return "exited";
	case MS_ERR_EXECED: return "exec'd";
	case MS_ERR_NOMM: return "no user address space";
	case MS_ERR_NOTSUP: return "not supported";
	case MS_ERR_IO: return "I/O error";
	case MS_ERR_NOMEM: return "out of memory";
	case MS_ERR_INVAL: return "invalid argument";
	case MS_ERR_PROTO: return "unexpected kernel answer";
	case MS_ERR_LIMIT: return "size limit";
	}
	return "unknown error";
}

int ms_error_exit_status(enum ms_errcode code)
{
	if (code == MS_OK || code == MS_END)
		return 0;
	return code == MS_ERR_INVAL ? 2 : 1;
}
