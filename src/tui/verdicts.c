#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/error.h"
#include "tui/maps_model.h"
#include "tui/verdicts.h"

int tui_verdicts_init(struct tui_verdicts *vc, const struct ms_ignore *ignore,
		      struct ms_maps *maps, struct ms_error *err)
{
	memset(vc, 0, sizeof(*vc));
	vc->maps = maps;
	return ms_stale_ctx_new(ignore, &vc->ctx, err);
}

static void drop_items(struct tui_verdicts *vc)
{
	for (size_t i = 0; i < vc->count; i++)
		free(vc->items[i].name);
	vc->count = 0;
}

void tui_verdicts_free(struct tui_verdicts *vc)
{
	drop_items(vc);
	free(vc->items);
	ms_stale_ctx_free(vc->ctx);
	memset(vc, 0, sizeof(*vc));
}

void tui_verdicts_forget(struct tui_verdicts *vc)
{
	drop_items(vc);
	if (vc->ctx)
		ms_stale_ctx_forget(vc->ctx);
	vc->age = 0;
}

bool tui_verdicts_tick(struct tui_verdicts *vc)
{
	if (++vc->age < TUI_VERDICT_FORGET_TICKS)
		return false;
	tui_verdicts_forget(vc);
	return true;
}

const struct ms_stale_result *tui_verdicts_find(const struct tui_verdicts *vc,
						const struct ms_mapping *m)
{
	for (size_t i = 0; i < vc->count; i++) {
		const struct tui_verdict *v = &vc->items[i];

		if (v->inode == m->inode && v->dev_major == m->dev_major &&
		    v->dev_minor == m->dev_minor && v->name_len == m->name_len &&
		    (!m->name_len || !memcmp(v->name, m->name, m->name_len)))
			return &v->result;
	}
	return NULL;
}

int tui_verdicts_get(struct tui_verdicts *vc, const struct ms_mapping *m,
		     const struct ms_stale_result **out)
{
	struct tui_verdict *v;

	*out = tui_verdicts_find(vc, m);
	if (*out)
		return 0;
	if (!vc->ctx)
		return MS_ERR_NOMEM;
	if (vc->count >= TUI_VERDICT_CACHE_MAX)
		drop_items(vc);
	if (tui_grow((void **)&vc->items, &vc->cap, vc->count, sizeof(*vc->items)) < 0)
		return MS_ERR_NOMEM;
	v = &vc->items[vc->count];
	memset(v, 0, sizeof(*v));
	v->name = malloc(m->name_len + 1);
	if (!v->name)
		return MS_ERR_NOMEM;
	if (m->name_len)
		memcpy(v->name, m->name, m->name_len);
	v->name[m->name_len] = '\0';
	v->name_len = m->name_len;
	v->inode = m->inode;
	v->dev_major = m->dev_major;
	v->dev_minor = m->dev_minor;
	if (ms_stale_judge(vc->ctx, vc->maps, m, &v->result) < 0) {
		free(v->name);
		return MS_ERR_NOMEM;
	}
	vc->count++;
	vc->judged++;
	*out = &v->result;
	return 0;
}

int tui_verdicts_judge(void *ctx, const struct ms_mapping *m, enum ms_stale_verdict *out)
{
	const struct ms_stale_result *r;
	int rc = tui_verdicts_get(ctx, m, &r);

	if (rc == 0)
		*out = r->verdict;
	return rc;
}
