{#- Measure names -> specs, in Jinja (twin of polars_rankeval/_parse.py): trec_eval
    aliases, Name(param=value,...)@k, family aliases, presets; compiler errors for bad
    names.  The tables come from rankeval._registry() (generated). -#}
{% macro _fail(message) %}
    {{ exceptions.raise_compiler_error("rankeval: " ~ message) }}
{% endmacro %}

{% macro _is_number(text) %}
    {{ return(modules.re.fullmatch('-?\\s*([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?', text) is not none) }}
{% endmacro %}

{% macro parse_measure(name, conventions='trec_eval', rel=1) %}
    {%- set reg = rankeval._registry() -%}
    {%- set re = modules.re -%}
    {%- if name is not string -%}{{ rankeval._fail("a measure name must be a string, got " ~ name) }}{%- endif -%}
    {%- if conventions not in reg.presets -%}
        {{ rankeval._fail("unknown conventions '" ~ conventions ~ "'; choose one of " ~ (reg.presets.keys() | list | join(', '))) }}
    {%- endif -%}
    {%- set text = name | trim -%}
    {%- set ns = namespace(src=text, done=false) -%}
    {%- for pattern, target in reg.trec -%}
        {%- if not ns.done -%}
            {%- set m = re.fullmatch(pattern, text) -%}
            {%- if m is not none -%}
                {%- set ns.src = target.replace('{}', (m.groups() | first) if m.groups() else '') -%}
                {%- set ns.done = true -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set m = re.fullmatch('([A-Za-z_][A-Za-z0-9_]*)\\s*(\\((.*)\\))?\\s*(@\\s*(.*))?', ns.src) -%}
    {%- if m is none -%}
        {{ rankeval._fail("cannot parse measure '" ~ name ~ "': expected Name, Name@k or Name(param=value,...)@k; " ~ reg.known) }}
    {%- endif -%}
    {%- set word, args, at = m.group(1), (m.group(3) or '') | trim, (m.group(5) or '') | trim -%}
    {%- set fam = namespace(name=none) -%}
    {%- for alias, family in reg.names -%}
        {%- if fam.name is none and alias == word -%}{%- set fam.name = family -%}{%- endif -%}
    {%- endfor -%}
    {%- for alias, family in reg.names -%}
        {%- if fam.name is none and alias | lower == word | lower -%}{%- set fam.name = family -%}{%- endif -%}
    {%- endfor -%}
    {%- if fam.name is none -%}{{ rankeval._fail("unknown measure '" ~ name ~ "'; " ~ reg.known) }}{%- endif -%}
    {%- set given = {} -%}
    {%- if args != '' -%}
        {%- for arg in args.split(',') -%}
            {%- set pm = re.fullmatch('\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*=\\s*(.*?)\\s*', arg) -%}
            {%- if pm is none -%}{{ rankeval._fail("measure '" ~ name ~ "': parameters must be named, as in P(rel=2)@5") }}{%- endif -%}
            {%- set raw = pm.group(2) -%}
            {%- if raw in ('True', 'False') -%}{{ rankeval._fail("measure '" ~ name ~ "': parameter values cannot be booleans") }}{%- endif -%}
            {%- if raw == 'None' or re.fullmatch("-?\\s*([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?|[A-Za-z_][A-Za-z0-9_]*|'[^']*'|\"[^\"]*\"", raw) is none -%}
                {{ rankeval._fail("measure '" ~ name ~ "': parameter values must be words or numbers") }}
            {%- endif -%}
            {%- if pm.group(1) in given -%}{{ rankeval._fail("measure '" ~ name ~ "': repeated or unnamed parameter") }}{%- endif -%}
            {%- set value = raw[1:-1] if (raw[:1] in ('"', "'")) else raw.replace(' ', '') -%}
            {%- do given.update({pm.group(1): value}) -%}
        {%- endfor -%}
    {%- endif -%}
    {#- object detection's AP(interp=voc11) is InterpAP (as _parse.py reads it) -#}
    {%- if fam.name == 'AP' and 'interp' in given -%}{%- set fam.name = 'InterpAP' -%}{%- endif -%}
    {%- set family = reg.families[fam.name] -%}
    {%- set k = none -%}
    {%- if at != '' and family.at_param -%}
        {%- if not rankeval._is_number(at) -%}{{ rankeval._fail("measure '" ~ name ~ "': the " ~ family.at_param ~ " after @ must be a number") }}{%- endif -%}
        {%- if family.at_param in given -%}{{ rankeval._fail("measure '" ~ name ~ "': " ~ family.at_param ~ " given twice") }}{%- endif -%}
        {%- do given.update({family.at_param: at}) -%}
    {%- elif at != '' -%}
        {%- if re.fullmatch('-\\s*[0-9]+', at) is not none or at == '0' or re.fullmatch('0+', at) is not none -%}
            {{ rankeval._fail("measure '" ~ name ~ "': the cutoff must be a positive integer, got " ~ (at.replace(' ', '') | int)) }}
        {%- endif -%}
        {%- if re.fullmatch('[0-9]+', at) is none -%}{{ rankeval._fail("measure '" ~ name ~ "': the cutoff after @ must be a positive integer") }}{%- endif -%}
        {%- if (at | int) > 2147483647 -%}{{ rankeval._fail("measure '" ~ name ~ "': the cutoff must be at most 2147483647") }}{%- endif -%}
        {%- if not family.cutoff -%}{{ rankeval._fail("measure '" ~ name ~ "': " ~ fam.name ~ " takes no @k cutoff") }}{%- endif -%}
        {%- set k = at | int -%}
    {%- endif -%}
    {%- set names = family.params | map(attribute='name') | list -%}
    {%- for key in given -%}
        {%- if key not in names -%}
            {{ rankeval._fail("measure '" ~ name ~ "': " ~ fam.name ~ " has no parameter '" ~ key ~ "'; its parameters: " ~ (names | sort | join(', '))) }}
        {%- endif -%}
    {%- endfor -%}
    {%- set spec = {'family': fam.name, 'aggregate': family.aggregate, 'k': k} -%}
    {%- set preset = reg.presets[conventions].get(fam.name, {}) -%}
    {%- for p in family.params -%}
        {%- if p.name in given -%}{%- set value = given[p.name] -%}
        {%- elif p.name in preset -%}{%- set value = preset[p.name] -%}
        {%- elif p.name == 'rel' -%}{%- set value = rel | string -%}
        {%- else -%}{%- set value = p.default -%}{%- endif -%}
        {%- if p.choices is not none -%}
            {%- if value not in p.choices -%}
                {{ rankeval._fail("measure '" ~ name ~ "': " ~ p.name ~ "=" ~ (value if rankeval._is_number(value) else "'" ~ value ~ "'") ~ " is not allowed; choose one of " ~ (p.choices | join(', '))) }}
            {%- endif -%}
        {%- else -%}
            {%- if not rankeval._is_number(value | string) -%}{{ rankeval._fail("measure '" ~ name ~ "': " ~ p.name ~ " must be a finite number, got '" ~ value ~ "'") }}{%- endif -%}
            {%- set x = (value | string).replace(' ', '') | float -%}
            {%- if p.minimum is not none and ((p.closed and x < p.minimum) or (not p.closed and x <= p.minimum)) -%}
                {{ rankeval._fail("measure '" ~ name ~ "': " ~ p.name ~ " must be " ~ ('>=' if p.closed else '>') ~ " " ~ p.minimum ~ ", got " ~ value) }}
            {%- endif -%}
            {%- if p.maximum is not none and ((p.closed and x > p.maximum) or (not p.closed and x >= p.maximum)) -%}
                {{ rankeval._fail("measure '" ~ name ~ "': " ~ p.name ~ " must be " ~ ('<=' if p.closed else '<') ~ " " ~ p.maximum ~ ", got " ~ value) }}
            {%- endif -%}
            {%- set value = x -%}
        {%- endif -%}
        {%- do spec.update({p.name: value}) -%}
    {%- endfor -%}
    {{ return(spec) }}
{% endmacro %}
