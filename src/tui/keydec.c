#include "config.h"

#include <string.h>

#include "tui/keydec.h"

enum {
	GROUND,
	AFTER_ESC,
	CSI,
	SS3,
	LINUX_FKEY, /* ESC [ [ */
	SWALLOW,    /* an overlong CSI, up to its final byte */
};

void tui_keydec_init(struct tui_keydec *d)
{
	memset(d, 0, sizeof(*d));
	d->state = GROUND;
	d->held = -1;
}

bool tui_keydec_pending(const struct tui_keydec *d)
{
	return d->state != GROUND;
}

int tui_keydec_held(struct tui_keydec *d)
{
	int c = d->held;

	d->held = -1;
	return c;
}

static int done(struct tui_keydec *d, int key)
{
	d->state = GROUND;
	d->len = 0;
	return key;
}

/* The final letter of CSI 1 ; m X or SS3 X. */
static int letter_key(int c)
{
	switch (c) {
	case 'A': return TUI_KEY_UP;
	case 'B': return TUI_KEY_DOWN;
	case 'C': return TUI_KEY_RIGHT;
	case 'D': return TUI_KEY_LEFT;
	case 'H': return TUI_KEY_HOME;
	case 'F': return TUI_KEY_END;
	case 'P': case 'Q': case 'R': case 'S': return TUI_KEY_F(c - 'P' + 1);
	default: return TUI_KEY_IGNORED;
	}
}

/* The number of CSI n ~: VT220 and rxvt (7, 8) editing keys, then F1-F12. */
static int tilde_key(unsigned n)
{
	static const int keys[] = {
		[1] = TUI_KEY_HOME, [2] = TUI_KEY_INSERT, [3] = TUI_KEY_DELETE, [4] = TUI_KEY_END,
		[5] = TUI_KEY_PGUP, [6] = TUI_KEY_PGDN, [7] = TUI_KEY_HOME, [8] = TUI_KEY_END,
		[11] = TUI_KEY_F(1), [12] = TUI_KEY_F(2), [13] = TUI_KEY_F(3), [14] = TUI_KEY_F(4),
		[15] = TUI_KEY_F(5), [17] = TUI_KEY_F(6), [18] = TUI_KEY_F(7), [19] = TUI_KEY_F(8),
		[20] = TUI_KEY_F(9), [21] = TUI_KEY_F(10), [23] = TUI_KEY_F(11), [24] = TUI_KEY_F(12),
	};

	return n < sizeof(keys) / sizeof(keys[0]) && keys[n] ? keys[n] : TUI_KEY_IGNORED;
}

/*
 * d->seq holds the parameter and intermediate bytes: at most two decimal
 * parameters ("4", "1;5") name a key; private markers, intermediates and
 * anything longer mean a report or a key we do not know.
 */
static int csi_key(const struct tui_keydec *d, int final)
{
	unsigned param[2] = { 0, 1 };
	size_t np = 0;
	int key;

	for (size_t i = 0; i < d->len; i++) {
		unsigned char c = d->seq[i];

		if (c == ';') {
			if (++np > 1)
				return TUI_KEY_IGNORED;
			param[np] = 0;
		} else if (c >= '0' && c <= '9' && param[np] < 1000) {
			param[np] = param[np] * 10 + (unsigned)(c - '0');
		} else if (c < '0' || c > '9') {
			return TUI_KEY_IGNORED;
		}
	}
	if (final == '~')
		key = tilde_key(param[0]);
	else if (param[0] <= 1)
		key = letter_key(final);
	else
		return TUI_KEY_IGNORED;
	if (key == TUI_KEY_IGNORED || param[1] <= 1)
		return key;
	return param[1] - 1 <= 15 ? TUI_KEY_WITH(key, (int)(param[1] - 1)) : TUI_KEY_IGNORED;
}

static int feed_csi(struct tui_keydec *d, int c)
{
	if (c == '[' && d->len == 0) {
		d->state = LINUX_FKEY;
		return TUI_KEY_PENDING;
	}
	if (c >= 0x40 && c <= 0x7e)
		return done(d, d->state == SWALLOW ? TUI_KEY_IGNORED : csi_key(d, c));
	if (c < 0x20 || c > 0x3f)
		/* Not part of any CSI: the sequence was cut; drop it and this byte. */
		return done(d, TUI_KEY_IGNORED);
	if (d->state == CSI && d->len < sizeof(d->seq))
		d->seq[d->len++] = (unsigned char)c;
	else
		d->state = SWALLOW;
	return TUI_KEY_PENDING;
}

int tui_keydec_feed(struct tui_keydec *d, int c)
{
	switch (d->state) {
	case GROUND:
		if (c != 27)
			return c;
		d->state = AFTER_ESC;
		return TUI_KEY_PENDING;
	case AFTER_ESC:
		if (c == '[') {
			d->state = CSI;
			d->len = 0;
			return TUI_KEY_PENDING;
		}
		if (c == 'O') {
			d->state = SS3;
			return TUI_KEY_PENDING;
		}
		if (c == 27)
			return TUI_KEY_ESC; /* two presses of Esc: the second still waits */
		if (c < 0x20 || c == 0x7f) {
			/* Esc then Enter, typed fast or sent by a script: both keys. */
			d->held = c;
			return done(d, TUI_KEY_ESC);
		}
		return done(d, TUI_KEY_ALT + (c & 0xff));
	case SS3:
		if (c == 'M')
			return done(d, '\r'); /* keypad Enter in application mode */
		return done(d, letter_key(c));
	case LINUX_FKEY:
		return done(d, c >= 'A' && c <= 'E' ? TUI_KEY_F(c - 'A' + 1) : TUI_KEY_IGNORED);
	default:
		return feed_csi(d, c);
	}
}

int tui_keydec_timeout(struct tui_keydec *d)
{
	switch (d->state) {
	case GROUND: return TUI_KEY_IGNORED;
	case AFTER_ESC: return done(d, TUI_KEY_ESC);
	case SS3: return done(d, TUI_KEY_ALT + 'O');
	case CSI: return done(d, d->len ? TUI_KEY_IGNORED : TUI_KEY_ALT + '[');
	default: return done(d, TUI_KEY_IGNORED);
	}
}
