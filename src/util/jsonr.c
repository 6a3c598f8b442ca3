/*
 * jsonr.c: typed member reads of a cJSON object (see jsonr.h). One place
 * for what every reader of records and state files did with its own copy.
 */
#include <cjson/cJSON.h>

#include "util/jsonr.h"
#include "util/banned.h"

const char *jsonr_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

double jsonr_num(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}
