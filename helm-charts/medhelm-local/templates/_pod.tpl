{{/*
The pod template every medhelm-local pod uses (Pod Security Standard "restricted", read-only root
filesystem, no service-account token). Called with a dict:
  ctx        the root context
  component  evaluator | merge | viewer | data-import (a label, and the container's name)
  args       the medhelm-local arguments
  resources  requests and limits
  restart    the pod's restartPolicy
  shard      true: JOB_COMPLETION_INDEX from the Indexed Job's annotation
  data       "ro" | "rw" | "" (not mounted)
  results    "ro" | "rw" | ""
  audit      true: the audit volume
  incoming   true: dataImport.sourceClaim read-only at /incoming, and staging.pub beside config.toml
  secrets    kek, apiKeys, viewerToken, signingKey: which secrets to mount
  viewer     true: the viewer's port and probes
*/}}
{{- define "medhelm-local.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.podSecurity.runAsUser }}
runAsGroup: {{ .Values.podSecurity.runAsGroup }}
fsGroup: {{ .Values.podSecurity.fsGroup }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "medhelm-local.containerSecurityContext" -}}
runAsNonRoot: true
allowPrivilegeEscalation: false
privileged: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "medhelm-local.pod" -}}
{{- $ := .ctx -}}
{{- $v := $.Values -}}
{{- $fullname := include "medhelm-local.fullname" $ -}}
{{- $secrets := .secrets | default list -}}
metadata:
  labels:
    {{- include "medhelm-local.selectorLabels" $ | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
    {{- with $v.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with $v.podAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  serviceAccountName: {{ $fullname }}
  automountServiceAccountToken: false
  enableServiceLinks: false
  restartPolicy: {{ .restart }}
  securityContext:
    {{- include "medhelm-local.podSecurityContext" $ | nindent 4 }}
  {{- with $v.imagePullSecrets }}
  imagePullSecrets:
    {{- range . }}
    - name: {{ . }}
    {{- end }}
  {{- end }}
  {{- with $v.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $v.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $v.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  containers:
    - name: {{ .component }}
      image: {{ include "medhelm-local.imageRef" $v.image | quote }}
      imagePullPolicy: {{ $v.image.pullPolicy }}
      command: [medhelm-local]
      args:
        {{- toYaml .args | nindent 8 }}
      env:
        - name: MEDHELM_CONFIG
          value: /etc/medhelm-local/config.toml
        - name: MEDHELM_SECRETS_DIR
          value: /run/secrets/medhelm-local
        - name: HOME
          value: /tmp
        - name: TMPDIR
          value: /tmp
        - name: PYTHONDONTWRITEBYTECODE
          value: "1"
        {{- if ($v.tls).caBundle }}
        - name: SSL_CERT_FILE
          value: /etc/medhelm-local/ca/ca.crt
        {{- end }}
        {{- if .shard }}
        - name: JOB_COMPLETION_INDEX
          valueFrom:
            fieldRef:
              fieldPath: metadata.annotations['batch.kubernetes.io/job-completion-index']
        {{- end }}
      {{- if .viewer }}
      ports:
        - name: http
          containerPort: {{ $v.viewer.port }}
          protocol: TCP
      readinessProbe:
        tcpSocket:
          port: http
        periodSeconds: 10
      livenessProbe:
        tcpSocket:
          port: http
        initialDelaySeconds: 30
        periodSeconds: 20
      {{- end }}
      securityContext:
        {{- include "medhelm-local.containerSecurityContext" $ | nindent 8 }}
      resources:
        {{- toYaml .resources | nindent 8 }}
      volumeMounts:
        - name: config
          mountPath: /etc/medhelm-local
          readOnly: true
        - name: config
          mountPath: /opt/medhelm-local/etc/medhelm-local/installation.toml
          subPath: installation.toml
          readOnly: true
        {{- if $secrets }}
        - name: secrets
          mountPath: /run/secrets/medhelm-local
          readOnly: true
        {{- end }}
        {{- if .data }}
        - name: data
          mountPath: /var/lib/medhelm-local/data
          readOnly: {{ eq .data "ro" }}
        {{- end }}
        {{- if .results }}
        - name: results
          mountPath: /var/lib/medhelm-local/results
          readOnly: {{ eq .results "ro" }}
        {{- end }}
        {{- if .audit }}
        - name: audit
          mountPath: /var/lib/medhelm-local/audit
        {{- end }}
        {{- if .incoming }}
        - name: incoming
          mountPath: /incoming
          readOnly: true
        {{- end }}
        - name: tmp
          mountPath: /tmp
  volumes:
    - name: config
      projected:
        defaultMode: 0444
        sources:
          - configMap:
              name: {{ $fullname }}-config
              items:
                - {key: config.toml, path: config.toml}
                - {key: installation.toml, path: installation.toml}
                - {key: networkpolicy.json, path: networkpolicy.json}
                {{- if ($v.tls).caBundle }}
                - {key: ca.crt, path: ca/ca.crt}
                {{- end }}
                {{- if and .incoming $v.dataImport.stagingPublicKey }}
                - {key: staging.pub, path: staging.pub}
                {{- end }}
          - configMap:
              name: {{ $fullname }}-policy
              items:
                {{- range $name := list "egress.yaml" "export.yaml" "retention.yaml" "roles.yaml" }}
                - {key: {{ $name }}, path: policies/{{ $name }}}
                {{- end }}
          - configMap:
              name: {{ $fullname }}-suite
              items:
                - {key: suite.yaml, path: suite/suite.yaml}
    {{- if $secrets }}
    - name: secrets
      projected:
        # root owns the files and the pod's fsGroup may only read them: the program refuses a key file anyone
        # else may read (docs/trust-model.md), and reads root's file through the fsGroup, nothing more.
        defaultMode: 0440
        sources:
          {{- if has "kek" $secrets }}
          - secret:
              name: {{ $v.secrets.kek.existingSecret }}
              items:
                - {key: {{ $v.secrets.kek.key | quote }}, path: kek}
          {{- end }}
          {{- if has "apiKeys" $secrets }}
          {{- range $name, $d := $v.deployments }}
          {{- with $d.apiKey }}
          - secret:
              name: {{ .existingSecret }}
              items:
                - {key: {{ .key | quote }}, path: api-keys/{{ $name }}}
          {{- end }}
          {{- end }}
          {{- end }}
          {{- if and (has "viewerToken" $secrets) $v.viewer.token.existingSecret }}
          - secret:
              name: {{ $v.viewer.token.existingSecret }}
              items:
                - {key: {{ $v.viewer.token.key | quote }}, path: viewer_token}
          {{- end }}
          {{- if and (has "signingKey" $secrets) $v.secrets.signingKey.existingSecret }}
          - secret:
              name: {{ $v.secrets.signingKey.existingSecret }}
              items:
                - {key: {{ $v.secrets.signingKey.key | quote }}, path: export-signing.key}
          {{- end }}
    {{- end }}
    {{- if .data }}
    - name: data
      persistentVolumeClaim:
        claimName: {{ $v.storage.data.existingClaim | default (printf "%s-data" $fullname) }}
        readOnly: {{ eq .data "ro" }}
    {{- end }}
    {{- if .results }}
    - name: results
      persistentVolumeClaim:
        claimName: {{ $v.storage.results.existingClaim | default (printf "%s-results" $fullname) }}
        readOnly: {{ eq .results "ro" }}
    {{- end }}
    {{- if .audit }}
    - name: audit
      persistentVolumeClaim:
        claimName: {{ $v.storage.audit.existingClaim | default (printf "%s-audit" $fullname) }}
    {{- end }}
    {{- if .incoming }}
    - name: incoming
      persistentVolumeClaim:
        claimName: {{ $v.dataImport.sourceClaim }}
        readOnly: true
    {{- end }}
    - name: tmp
      emptyDir:
        sizeLimit: {{ $v.storage.tmpSizeLimit }}
{{- end -}}
