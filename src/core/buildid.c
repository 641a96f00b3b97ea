#include "config.h"

#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>

#include "buildid.h"

static int note_build_id(Elf_Data *data, unsigned char *out, size_t *len)
{
	size_t offset = 0, next;
	size_t name_off, desc_off;
	GElf_Nhdr nh;

	while (offset < data->d_size &&
	       (next = gelf_getnote(data, offset, &nh, &name_off, &desc_off)) > 0) {
		const char *name = (const char *)data->d_buf + name_off;

		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == sizeof(ELF_NOTE_GNU) &&
		    !memcmp(name, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU)) &&
		    nh.n_descsz > 0 && nh.n_descsz <= MS_BUILD_ID_MAX) {
			memcpy(out, (const char *)data->d_buf + desc_off, nh.n_descsz);
			*len = nh.n_descsz;
			return 0;
		}
		offset = next;
	}
	return MS_END;
}

int ms_buildid_read_fd(int fd, unsigned char out[MS_BUILD_ID_MAX], size_t *len,
		       struct ms_error *err)
{
	size_t nphdr;
	int rc = MS_END;
	Elf *elf;

	*len = 0;
	/* Required before any other libelf call; cheap and idempotent. */
	if (elf_version(EV_CURRENT) == EV_NONE)
		return ms_error_set(err, MS_ERR_IO, 0, "libelf: %s", elf_errmsg(-1));
	/* ELF_C_READ: pread on demand, no mmap of a file that may change under us. */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return ms_error_set(err, MS_ERR_IO, 0, "libelf: %s", elf_errmsg(-1));
	if (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nphdr) != 0)
		goto out;
	for (size_t i = 0; i < nphdr && rc == MS_END; i++) {
		GElf_Phdr ph;
		Elf_Data *data;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE ||
		    ph.p_filesz == 0 || ph.p_filesz > MS_BUILDID_NOTES_MAX)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (data)
			rc = note_build_id(data, out, len);
	}
out:
	elf_end(elf);
	return rc;
}

void ms_buildid_hex(const unsigned char *id, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 0xf];
	}
	out[2 * len] = '\0';
}
