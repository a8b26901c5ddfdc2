# thm_warnings: the project's warning set as one interface target, linked PRIVATE by every
# target the project builds (house style §9). THM_WERROR turns warnings into errors; the
# switch check is an error everywhere, because SPEC §5 relies on it to classify variants.
add_library(thm_warnings INTERFACE)
target_compile_options(thm_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wconversion -Wshadow -Werror=switch
  $<$<BOOL:${THM_WERROR}>:-Werror>)
