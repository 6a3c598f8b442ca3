/*
 * banned.h: functions we never call. Each has a bounded or reentrant
 * replacement (snprintf, memcpy with a length, strtok_r, strtol with
 * checks). Included last by every .c in src/ so a use fails to compile.
 */
#ifndef JOSTLE_BANNED_H
#define JOSTLE_BANNED_H

#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef atoi
#define atoi(x) BANNED(atoi)
#undef gets
#define gets(x) BANNED(gets)

#endif
