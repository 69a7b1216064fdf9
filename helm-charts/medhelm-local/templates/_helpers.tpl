{{/*
Names, labels, the effective policy, render-time checks and the egress rules.
Paths inside every pod (the program reads them through /etc/medhelm-local/config.toml):
  /etc/medhelm-local/            config.toml, networkpolicy.json, policies/, suite/suite.yaml (read-only)
  /run/secrets/medhelm-local/    kek, api-keys/<deployment>, viewer_token, export-signing.key (read-only)
  /var/lib/medhelm-local/data    the data root (read-only)
  /var/lib/medhelm-local/results the suite stores
  /var/lib/medhelm-local/audit   the audit log
  /tmp                           emptyDir
*/}}

{{- define "medhelm-local.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "medhelm-local.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "medhelm-local.labels" -}}
{{ include "medhelm-local.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* An image reference, by digest when one is given, else by its exact tag. */}}
{{- define "medhelm-local.imageRef" -}}
{{- if .digest -}}{{ printf "%s@%s" .repository .digest }}{{- else -}}{{ printf "%s:%s" .repository .tag }}{{- end -}}
{{- end -}}

{{/* The policy value (as JSON: toYaml would trim a policy file's last newline): the site's generated values, else the chart's copy of the shipped policies/. */}}
{{- define "medhelm-local.policy" -}}
{{- if .Values.policy -}}
{{- toJson .Values.policy -}}
{{- else -}}
{{- toJson (.Files.Get "files/policy-values.yaml" | fromYaml).policy -}}
{{- end -}}
{{- end -}}

{{/* host and port a base URL connects to, as "host port". */}}
{{- define "medhelm-local.hostPort" -}}
{{- $u := urlParse . -}}
{{- $port := ternary "443" "80" (eq $u.scheme "https") -}}
{{- if and (ne $u.host $u.hostname) (not (hasSuffix "]" $u.host)) -}}
{{- $port = last (splitList ":" $u.host) -}}
{{- end -}}
{{- printf "%s %s" ($u.hostname | lower | trimSuffix ".") $port -}}
{{- end -}}

{{/* Render-time checks: fail with what is wrong and what to do. Every template includes them
first, so a bad value is reported as itself, whatever order Helm renders the templates in. */}}
{{- define "medhelm-local.validate" -}}
{{- $refs := dict "secrets.kek" .Values.secrets.kek "secrets.signingKey" .Values.secrets.signingKey "viewer.token" .Values.viewer.token -}}
{{- range $name, $d := .Values.deployments -}}{{- $_ := set $refs (printf "deployments.%s.apiKey" $name) $d.apiKey -}}{{- end -}}
{{- range $name, $ref := $refs -}}
{{- if kindIs "string" $ref -}}
{{- fail (printf "%s holds a value, but secrets are never chart values (Helm would keep them in its release records): create a Secret, e.g. `kubectl create secret generic NAME --from-file=KEY=FILE`, and set %s.existingSecret to its name and %s.key to the key" $name $name $name) -}}
{{- end -}}
{{- end -}}
{{- $policy := include "medhelm-local.policy" . | fromJson -}}
{{- $lines := "" -}}
{{- range $name := keys $policy.files | sortAlpha -}}
{{- $lines = printf "%s%s\x00%s\n" $lines $name (sha256sum (index $policy.files $name)) -}}
{{- end -}}
{{- if ne (sha256sum $lines) $policy.digest -}}
{{- fail "policy.files do not match policy.digest: the generated policy values were edited. Edit the policy files instead, then generate the values again with `medhelm-local policy chart-values --out FILE`" -}}
{{- end -}}
{{- $endpoints := "" -}}
{{- $allowed := list -}}
{{- range $policy.egress -}}
{{- $endpoints = printf "%s%s|%v|%s|%s|%s|%s|%s\n" $endpoints .host .port .purpose .kind (.cidr | default "") (.namespace | default "") (.service | default "") -}}
{{- $allowed = append $allowed (printf "%s %v" .host .port) -}}
{{- end -}}
{{- if ne (sha256sum $endpoints) $policy.egressDigest -}}
{{- fail "policy.egress does not match policy.egressDigest: the generated endpoints were edited. Edit egress.yaml instead, then generate the values again with `medhelm-local policy chart-values --out FILE`" -}}
{{- end -}}
{{- range $name, $d := .Values.deployments -}}
{{- $hp := include "medhelm-local.hostPort" $d.baseUrl -}}
{{- if not (has $hp $allowed) -}}
{{- fail (printf "deployments.%s.baseUrl connects to %s, which is not on the egress allowlist (policy.egress), so every request would be refused: add it to the site's egress.yaml, generate the policy values again with `medhelm-local policy chart-values`, and pass them with -f" $name (replace " " ":" $hp)) -}}
{{- end -}}
{{- end -}}
{{- range .Values.suite.models -}}
{{- if not (hasKey $.Values.deployments .deployment) -}}
{{- fail (printf "suite.models names deployment %q for model %q, but deployments has no such entry: add deployments.%s with its baseUrl" .deployment .model .deployment) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The egress rules for the evaluator pods, one per allowed endpoint, as a YAML list. */}}
{{- define "medhelm-local.egressRules" -}}
{{- $ := . -}}
{{- $policy := include "medhelm-local.policy" . | fromJson -}}
{{- $fullname := include "medhelm-local.fullname" . -}}
{{- $rules := list -}}
{{- range $policy.egress -}}
{{- $e := . -}}
{{- $to := list -}}
{{- $port := .port -}}
{{- if eq .kind "address" -}}
{{- $to = list (dict "ipBlock" (dict "cidr" .cidr)) -}}
{{- else if eq .kind "service" -}}
{{- $selector := dict -}}
{{- if and $.Values.vllm.enabled (eq .service (printf "%s-vllm" $fullname)) (eq .namespace $.Release.Namespace) -}}
{{- if ne (int .port) (int $.Values.vllm.port) -}}
{{- fail (printf "egress.yaml allows %s:%v, but the chart's vLLM Service listens on port %v: list that port in egress.yaml or set vllm.port" .host .port $.Values.vllm.port) -}}
{{- end -}}
{{- $selector = dict "app.kubernetes.io/name" $.Chart.Name "app.kubernetes.io/instance" $.Release.Name "app.kubernetes.io/component" "vllm" -}}
{{- else -}}
{{- range $.Values.networkPolicy.services -}}
{{- if eq (lower .host) $e.host -}}
{{- $selector = .podSelector -}}
{{- $port = .targetPort | default $e.port -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if not $selector -}}
{{- fail (printf "egress.yaml allows %s:%v, a Service in namespace %s, but a NetworkPolicy selects pods, not Services: add networkPolicy.services with host %s and the podSelector of the pods behind it (kubectl get service %s -n %s -o jsonpath='{.spec.selector}'), and targetPort if the Service maps the port" .host .port .namespace .host .service .namespace) -}}
{{- end -}}
{{- $to = list (dict "namespaceSelector" (dict "matchLabels" (dict "kubernetes.io/metadata.name" .namespace)) "podSelector" (dict "matchLabels" $selector)) -}}
{{- else -}}
{{- range $.Values.networkPolicy.addresses -}}
{{- if eq (lower .host) $e.host -}}
{{- range .cidrs -}}
{{- $to = append $to (dict "ipBlock" (dict "cidr" .)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if not $to -}}
{{- fail (printf "egress.yaml allows %s:%v, a host name outside the cluster, but a NetworkPolicy cannot name hosts: add networkPolicy.addresses with host %s and the CIDRs it resolves to" .host .port .host) -}}
{{- end -}}
{{- end -}}
{{- $rules = append $rules (dict "host" .host "port" .port "purpose" .purpose "to" $to "ports" (list (dict "protocol" "TCP" "port" $port))) -}}
{{- end -}}
{{- toJson $rules -}}
{{- end -}}

{{/* The DNS egress rule, only when an allowed host is a name. */}}
{{- define "medhelm-local.dnsRule" -}}
{{- $policy := include "medhelm-local.policy" . | fromJson -}}
{{- $names := 0 -}}
{{- range $policy.egress -}}{{- if ne .kind "address" -}}{{- $names = add1 $names -}}{{- end -}}{{- end -}}
{{- if $names -}}
{{- $dns := .Values.networkPolicy.dns -}}
{{- toJson (dict "to" (list (dict "namespaceSelector" (dict "matchLabels" (dict "kubernetes.io/metadata.name" $dns.namespace)) "podSelector" (dict "matchLabels" $dns.podSelector))) "ports" (list (dict "protocol" "UDP" "port" $dns.port) (dict "protocol" "TCP" "port" $dns.port))) -}}
{{- end -}}
{{- end -}}

{{/* What `medhelm-local policy check` reads in the pods: the NetworkPolicy as rendered. */}}
{{- define "medhelm-local.networkDescription" -}}
{{- $policy := include "medhelm-local.policy" . | fromJson -}}
{{- $d := dict "format" 1 "release" .Release.Name "namespace" .Release.Namespace "enabled" .Values.networkPolicy.enabled "policy_digest" $policy.digest "rules" list "dns" nil -}}
{{- if .Values.networkPolicy.enabled -}}
{{- $_ := set $d "rules" (include "medhelm-local.egressRules" . | fromJsonArray) -}}
{{- $dns := include "medhelm-local.dnsRule" . -}}
{{- if $dns -}}{{- $_ := set $d "dns" ($dns | fromJson) -}}{{- end -}}
{{- end -}}
{{- toPrettyJson $d -}}
{{- end -}}
