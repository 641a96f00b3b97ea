/* Seeds of tests/fuzz/corpus/symbols: gcc -g -O1 -fPIC -shared -o libtiny.so tiny.c;
   the same without -g, then strip --strip-unneeded (libtiny-stripped.so); gcc -g -O1 -c (tiny.o);
   gcc -O1 -no-pie -nostdlib -Wl,-e,main (tiny-exec). */
static int helper(int x) { return x * 3 + 1; }
int visible(int x) { return helper(x) + 2; }
int weak_one(int x) __attribute__((weak));
int weak_one(int x) { return x - 1; }
int alias_of_visible(int x) __attribute__((alias("visible")));
int counter;
int main(void) { return visible(counter) + weak_one(1); }
