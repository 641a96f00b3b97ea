/*
 * libms-verdef.so: a library with version definitions (tests/verdef_lib.map)
 * whose highest, MSV_1.10, is not the highest as text (MSV_1.9.3), and
 * beside a name without a number (MSV_PRIVATE) and another prefix with a
 * lower number (OTHER_0.5).  tests/core/elf/test_verdef.c reads it.
 */
int ms_verdef_one(void);
int ms_verdef_two(void);
int ms_verdef_three(void);
int ms_verdef_private(void);
int ms_verdef_other(void);

int ms_verdef_one(void) { return 1; }
int ms_verdef_two(void) { return 2; }
int ms_verdef_three(void) { return 3; }
int ms_verdef_private(void) { return 4; }
int ms_verdef_other(void) { return 5; }
