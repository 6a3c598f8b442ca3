/*
 * jsonr.h: reading one member of a parsed cJSON object, the counterpart of
 * jsonw.h. Records, reproducer.json, bisect.json and the run log are read
 * back member by member, and a member that is missing or of another type
 * is a normal case (an older record, a hand-edited file): it reads as NULL
 * or as the caller's default, never as an error.
 */
#ifndef JOSTLE_JSONR_H
#define JOSTLE_JSONR_H

struct cJSON;

/* o's string member key, or NULL when o is NULL or the member is missing
 * or not a string. Borrowed: it lives as long as o. */
const char *jsonr_str(const struct cJSON *o, const char *key);

/* o's number member key, or dflt when o is NULL or the member is missing
 * or not a number. */
double jsonr_num(const struct cJSON *o, const char *key, double dflt);

#endif
