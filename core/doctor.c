#include "core/doctor.h"

const char *at_doctor_state_name(enum at_doctor_state s)
{
	return s == AT_DOCTOR_OK ? "ok" : s == AT_DOCTOR_FALLBACK ? "fallback" : "fail";
}
