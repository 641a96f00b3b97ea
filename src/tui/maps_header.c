#include "config.h"

#include <stdio.h>

#include "core/base/units.h"
#include "tui/format.h"
#include "tui/maps_header.h"

void tui_format_maps_header(char *buf, size_t size, const struct tui_mapview *vm, const char *title,
			    const char *backend, bool rss_known, uint64_t rss)
{
	char filters[16], total[32], resident[48] = "";

	tui_format_filters(filters, sizeof(filters), vm->filter);
	if (!vm->index_valid) {
		snprintf(buf, size, "%s | %s | filter %s%s%s | %zu shown", title, backend, filters,
			 vm->name_filter[0] ? " name~" : "", vm->name_filter, vm->nrows);
		return;
	}
	ms_format_size(vm->total_size, false, total, sizeof(total));
	if (rss_known) {
		snprintf(resident, sizeof(resident), ", rss ");
		ms_format_size(rss, false, resident + 6, sizeof(resident) - 6);
	}
	snprintf(buf, size, "%s | %s | filter %s%s%s | %zu/%zu maps, %s%s%s%s%s", title, backend,
		 filters, vm->name_filter[0] ? " name~" : "", vm->name_filter,
		 tui_mapview_position(vm), vm->nstarts, total, resident,
		 tui_mapview_sorted(vm) ? " | sort " : "",
		 tui_mapview_sorted(vm) ? tui_map_sort_name(vm->sort) : "",
		 vm->sort_reverse ? ", reversed" : "");
}
